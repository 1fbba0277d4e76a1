package dev.companion4j.extension.install;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code companion4j extension install}: puts the generated extension for one CLI, with this jar
 * and a launcher, in a directory of the user's own and has the CLI install (copy) or link it with
 * its own {@code extensions} command. Says each step it takes.
 */
public final class ExtensionInstaller {
  /** Where the generated extensions are in the jar. */
  private static final String DIST = "dev/companion4j/extension/dist/";
  private static final String NAME = "companion4j";
  private static final long CLI_TIMEOUT_SECONDS = 120;

  /** The CLI the extension goes into. */
  public enum Cli {
    QWEN("qwen", "Qwen Code"),
    GEMINI("gemini", "Gemini CLI");

    final String runtime;
    final String displayName;

    Cli(String runtime, String displayName) {
      this.runtime = runtime;
      this.displayName = displayName;
    }

    public static Cli of(String name) {
      for (Cli c : values()) {
        if (c.runtime.equals(name.toLowerCase(Locale.ROOT))) {
          return c;
        }
      }
      throw new IllegalArgumentException("unknown CLI '" + name + "': qwen or gemini");
    }
  }

  /**
   * @param cli which CLI
   * @param cliCommand how to run it, e.g. {@code qwen} or a path
   * @param link whether the CLI links the staged directory instead of copying it
   * @param stateDir the user's own directory for staged extensions
   */
  public record Request(Cli cli, List<String> cliCommand, boolean link, Path stateDir) {
    public Request {
      cliCommand = List.copyOf(cliCommand);
    }
  }

  private final PrintStream out;

  public ExtensionInstaller(PrintStream out) {
    this.out = out;
  }

  /** Installs; returns the CLI's exit status (0 when it took the extension). */
  public int install(Request request) throws IOException, InterruptedException {
    Path stage = request.stateDir().resolve("extensions").resolve(request.cli().runtime);
    stage(request.cli(), stage);
    out.println("Staged the " + request.cli().displayName + " extension in " + stage);
    HookCache.train(stage.resolve("lib"), out);

    // A second install replaces the first: the CLIs refuse to install over an extension.
    run(request, List.of("extensions", "uninstall", NAME), true);
    List<String> args = new ArrayList<>(List.of("extensions", request.link() ? "link" : "install", stage.toString()));
    args.add("--consent");
    int status = run(request, args, false);
    if (status == 0) {
      out.println(request.cli().displayName + " " + (request.link() ? "links" : "installed a copy of")
          + " the extension '" + NAME + "'" + (request.link() ? " to " + stage : "")
          + ". Check with: " + String.join(" ", request.cliCommand()) + " extensions list");
    } else {
      out.println(request.cli().displayName + " refused the extension (exit " + status + "); its output is above.");
    }
    return status;
  }

  /** Writes the generated files, this jar and the launcher into {@code stage}, replacing it. */
  static void stage(Cli cli, Path stage) throws IOException {
    deleteRecursively(stage);
    Files.createDirectories(stage.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path jar = runningJar();
    try (FileSystem fs = jar.toString().endsWith(".jar") ? FileSystems.newFileSystem(jar) : null) {
      Path dist = (fs == null ? jar : fs.getPath("/")).resolve(DIST + cli.runtime);
      try (Stream<Path> files = Files.walk(dist)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          Path target = stage.resolve(dist.relativize(f).toString());
          Files.createDirectories(target.getParent());
          Files.copy(f, target);
        }
      }
    }
    stage.resolve("bin/companion4j").toFile().setExecutable(true, true);
    Files.createDirectories(stage.resolve("lib"));
    if (jar.toString().endsWith(".jar")) {
      Files.copy(jar, stage.resolve("lib/companion4j.jar"), StandardCopyOption.REPLACE_EXISTING);
    }
    Files.writeString(stage.resolve("lib/java"), HookCache.java().toString(), StandardCharsets.UTF_8);
  }

  private int run(Request request, List<String> args, boolean quiet) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(request.cliCommand());
    command.addAll(args);
    if (!quiet) {
      out.println("Running: " + String.join(" ", command));
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    // Settings the CLI asks for keep their defaults; the extension works without them.
    try (var stdin = p.getOutputStream()) {
      stdin.write("\n\n\n\n".getBytes(StandardCharsets.UTF_8));
    } catch (IOException closedEarly) {
      // The CLI asked nothing.
    }
    String output;
    try (InputStream in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish within " + CLI_TIMEOUT_SECONDS + " s");
    }
    if (!quiet) {
      output.lines().forEach(line -> out.println("  " + line));
    }
    return p.exitValue();
  }

  /** The jar (or classes directory) this code runs from. */
  static Path runningJar() {
    try {
      return Path.of(ExtensionInstaller.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
