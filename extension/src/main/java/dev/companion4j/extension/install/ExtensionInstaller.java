package dev.companion4j.extension.install;

import dev.companion4j.extension.generate.ExtensionGenerator;
import dev.companion4j.extension.hook.HookMain;
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
   * @param atTerminal whether a person answers the CLI's questions; otherwise the installer gives
   *     consent and defaults and ends at once on a question it does not know
   */
  public record Request(
      Cli cli, List<String> cliCommand, boolean link, Path stateDir, boolean atTerminal) {
    public Request {
      cliCommand = List.copyOf(cliCommand);
    }

    Path stage() {
      return stateDir.resolve("extensions").resolve(cli.runtime);
    }
  }

  private final PrintStream out;

  public ExtensionInstaller(PrintStream out) {
    this.out = out;
  }

  /** Installs; returns the CLI's exit status (0 when it took the extension). */
  public int install(Request request) throws IOException, InterruptedException {
    Path stage = request.stage();
    prepare(request.cli(), stage, HookCache.java(), runningJar());

    // A second install replaces the first: the CLIs refuse to install over an extension.
    CliRun.quiet(request.cliCommand(), List.of("extensions", "uninstall", NAME));
    List<String> command = new ArrayList<>(request.cliCommand());
    command.addAll(installArguments(request, stage));
    out.println("Running: " + String.join(" ", command));
    // In the staged folder: Gemini CLI trusts the folder it runs in along with the source it was
    // asked to trust.
    int status;
    if (request.atTerminal()) {
      out.println("Answer " + request.cli().displayName + "'s questions below.");
      status = CliRun.atTerminal(command, stage, out);
    } else {
      status =
          new CliRun(out, request.cli().displayName, command, stage, prompts(request, stage)).run();
    }
    if (status == 0 && !request.link()) {
      Path copy = HookMain.installedCopy(request.cli().runtime, System.getenv());
      if (Files.isDirectory(copy)) {
        HookCache.trainCopy(stage, copy, out);
      }
    }
    if (status == 0) {
      out.println(
          request.cli().displayName
              + " "
              + (request.link() ? "links" : "installed a copy of")
              + " the extension '"
              + NAME
              + "'"
              + (request.link() ? " to " + stage : "")
              + ". Check with: "
              + String.join(" ", request.cliCommand())
              + " extensions list");
    } else if (status != CliRun.STOPPED) {
      out.println(
          request.cli().displayName
              + " refused the extension (exit "
              + status
              + "); its output is above.");
    }
    return status;
  }

  /**
   * Has the CLI uninstall the extension with its own {@code extensions uninstall}, then removes
   * what {@link #install} staged; returns the CLI's exit status.
   */
  public int uninstall(Request request) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(request.cliCommand());
    command.addAll(List.of("extensions", "uninstall", NAME));
    out.println("Running: " + String.join(" ", command));
    Path here = Path.of("").toAbsolutePath();
    int status =
        request.atTerminal()
            ? CliRun.atTerminal(command, here, out)
            : new CliRun(out, request.cli().displayName, command, here, List.of()).run();
    Path stage = request.stage();
    if (Files.exists(stage)) {
      Directories.deleteRecursively(stage);
      out.println("Removed the staged extension " + stage);
    }
    if (status == 0) {
      out.println(request.cli().displayName + " no longer has the extension '" + NAME + "'.");
    } else if (status != CliRun.STOPPED) {
      out.println(
          request.cli().displayName
              + " did not uninstall the extension (exit "
              + status
              + "); its output is above.");
    }
    return status;
  }

  /**
   * Makes {@code stage} a complete extension for {@code cli} that runs {@code jar} (the companion4j
   * command's) with {@code java}: the generated files, the jar, the launcher and the hook's class
   * cache.
   */
  public void prepare(Cli cli, Path stage, Path java, Path jar)
      throws IOException, InterruptedException {
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
   * The CLI's own command. Without a person, consent is given by flag where the CLI has one (Qwen
   * Code's {@code link} has none and asks on stdin), and Gemini CLI skips the settings, whose
   * defaults the extension works with; at a terminal the person answers the CLI's own questions.
   */
  private static List<String> installArguments(Request request, Path stage) {
    List<String> args =
        new ArrayList<>(
            List.of("extensions", request.link() ? "link" : "install", stage.toString()));
    if (!request.atTerminal() && (request.cli() == Cli.GEMINI || !request.link())) {
      args.add("--consent");
    }
    if (!request.atTerminal() && request.cli() == Cli.GEMINI && !request.link()) {
      args.add("--skip-settings");
    }
    return args;
  }

  /**
   * What the CLI asks on the way without a person, and the answer: Gemini CLI's folder trust for
   * the folder staged here (its answer records that folder alone as trusted), consent where no flag
   * gives it, and the default for each setting of the staged manifest, asked for by name.
   */
  private static List<CliRun.Prompt> prompts(Request request, Path stage) throws IOException {
    List<CliRun.Prompt> prompts = new ArrayList<>();
    if (request.cli() == Cli.GEMINI) {
      prompts.add(
          new CliRun.Prompt(
              "The extension source at \"" + stage + "\" is not trusted.",
              "Do you want to trust this folder and continue with the installation? [y/N]",
              "y",
              "Answered yes: Gemini CLI now trusts "
                  + stage
                  + ", the folder this installer staged, and no other."));
    }
    if (request.cli() == Cli.QWEN && request.link()) {
      prompts.add(
          new CliRun.Prompt("", "[Y/n]", "y", "Answered yes: consent to link the extension."));
    }
    if (request.cli() == Cli.GEMINI && !request.link()) {
      return prompts; // --skip-settings
    }
    JsonNode manifest =
        JsonMapper.shared()
            .readTree(stage.resolve(request.cli().runtime + "-extension.json").toFile());
    for (JsonNode setting : manifest.path("settings")) {
      String name = setting.path("name").asString();
      prompts.add(
          new CliRun.Prompt("", name, "", "Answered the setting '" + name + "' with its default."));
    }
    return prompts;
  }

  /** The jar (or classes directory) this code runs from. */
  static Path runningJar() {
    try {
      return Path.of(
          ExtensionInstaller.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
