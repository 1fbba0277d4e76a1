package dev.companion4j.extension.install;

import dev.companion4j.extension.generate.ExtensionGenerator;
import dev.companion4j.extension.hook.ShellPolicy;
import dev.companion4j.extension.io.Directories;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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
    prepare(request.cli(), stage, HookCache.java(), runningJar());

    // A second install replaces the first: the CLIs refuse to install over an extension.
    run(request, List.of("extensions", "uninstall", NAME), List.of(), true);
    int status = run(request, installArguments(request, stage), prompts(request, stage), false);
    if (status == 0) {
      out.println(request.cli().displayName + " " + (request.link() ? "links" : "installed a copy of")
          + " the extension '" + NAME + "'" + (request.link() ? " to " + stage : "")
          + ". Check with: " + String.join(" ", request.cliCommand()) + " extensions list");
    } else {
      out.println(request.cli().displayName + " refused the extension (exit " + status + "); its output is above.");
    }
    return status;
  }

  /**
   * Makes {@code stage} a complete extension for {@code cli} that runs {@code jar} (the companion4j
   * command's) with {@code java}: the generated files, the jar, the launcher and the hook's class cache.
   */
  public void prepare(Cli cli, Path stage, Path java, Path jar) throws IOException, InterruptedException {
    stage(cli, stage, java, jar);
    out.println("Staged the " + cli.displayName + " extension in " + stage);
    HookCache.train(stage.resolve("lib"), out);
  }

  /** Writes the generated files, this jar and the launcher into {@code stage}, replacing it. */
  static void stage(Cli cli, Path stage, Path java, Path jar) throws IOException {
    Directories.deleteRecursively(stage);
    Directories.createOwnerOnly(stage.getParent());
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
    stage.resolve(ExtensionGenerator.LAUNCHER).toFile().setExecutable(true, true);
    Files.createDirectories(stage.resolve("lib"));
    if (jar.toString().endsWith(".jar")) {
      Files.copy(jar, stage.resolve("lib/companion4j.jar"), StandardCopyOption.REPLACE_EXISTING);
    }
    try (InputStream rules = ShellPolicy.class.getResourceAsStream(ShellPolicy.RESOURCE)) {
      Files.copy(rules, stage.resolve(ShellPolicy.STAGED));
    }
    Files.writeString(stage.resolve("lib/java"), java + "\n", StandardCharsets.UTF_8);
  }

  /**
   * The CLI's own command. Qwen Code's {@code link} has no {@code --consent} and asks on stdin;
   * Gemini CLI's {@code install} can skip the settings, whose defaults the extension works with.
   */
  private static List<String> installArguments(Request request, Path stage) {
    List<String> args = new ArrayList<>(List.of("extensions", request.link() ? "link" : "install", stage.toString()));
    if (request.cli() == Cli.GEMINI || !request.link()) {
      args.add("--consent");
    }
    if (request.cli() == Cli.GEMINI && !request.link()) {
      args.add("--skip-settings");
    }
    return args;
  }

  /**
   * What the CLI asks on the way, and the answer: consent where no flag gives it, and the default
   * for each setting of the staged manifest, which the CLIs ask for by name.
   */
  private static List<Prompt> prompts(Request request, Path stage) throws IOException {
    List<Prompt> prompts = new ArrayList<>();
    if (request.cli() == Cli.QWEN && request.link()) {
      prompts.add(new Prompt("[Y/n]", "y"));
    }
    JsonNode manifest = JsonMapper.shared().readTree(stage.resolve(request.cli().runtime + "-extension.json").toFile());
    for (JsonNode setting : manifest.path("settings")) {
      prompts.add(new Prompt(setting.path("name").asString(), ""));
    }
    return prompts;
  }

  /** A question the CLI prints, answered once when its text appears in the output. */
  private record Prompt(String text, String answer) {}

  private int run(Request request, List<String> args, List<Prompt> prompts, boolean quiet) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(request.cliCommand());
    command.addAll(args);
    if (!quiet) {
      out.println("Running: " + String.join(" ", command));
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (InputStream in = p.getInputStream()) {
        byte[] buffer = new byte[4096];
        for (int n; (n = in.read(buffer)) > 0; ) {
          synchronized (output) {
            output.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            output.notifyAll();
          }
        }
      } catch (IOException ended) {
        // The CLI is gone; what it said is kept.
      }
    }, "companion4j-install-output");
    reader.start();
    try (var stdin = p.getOutputStream()) {
      int from = 0;
      for (Prompt prompt : prompts) {
        // A CLI reads its answers line by line as it asks: an answer sent early would be swallowed.
        int at = awaitText(output, prompt.text(), from, p);
        if (at < 0) {
          break;
        }
        stdin.write((prompt.answer() + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        from = at + prompt.text().length();
      }
    } catch (IOException closedEarly) {
      // The CLI stopped reading: nothing more to answer.
    }
    if (!p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish within " + CLI_TIMEOUT_SECONDS + " s");
    }
    reader.join();
    if (!quiet) {
      output.toString().lines().map(line -> line.replaceAll("\u001B(\\[[0-9;?]*[A-Za-z]|[78])", "")).filter(line -> !line.isBlank())
          .forEach(line -> out.println("  " + line));
    }
    return p.exitValue();
  }

  /** Where {@code text} appears in {@code output} after {@code from}, or -1 once the process ended without it. */
  private static int awaitText(StringBuilder output, String text, int from, Process p) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLI_TIMEOUT_SECONDS);
    synchronized (output) {
      while (true) {
        int at = output.indexOf(text, from);
        if (at >= 0) {
          return at;
        }
        if (!p.isAlive() || System.nanoTime() > deadline) {
          return -1;
        }
        output.wait(200);
      }
    }
  }

  /** The jar (or classes directory) this code runs from. */
  static Path runningJar() {
    try {
      return Path.of(ExtensionInstaller.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
