package dev.companion4j.cli;

import dev.companion4j.cli.os.Executables;
import dev.companion4j.engine.Companion;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** {@code companion4j run -- qwen}: a companion for the lifetime of one command. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a companion, runs the command with the IDE variables set, and stops when it exits.",
      "In a container it also tells Gemini CLI to dial 127.0.0.1 rather than host.docker.internal.",
      "Exits with the command's exit code (127 when the command cannot be found)."
    })
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CompanionOptions options;

  @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command to run, after --, e.g. -- qwen")
  List<String> command;

  /** The shell's exit code for a command that cannot be run. */
  private static final int NOT_FOUND = 127;

  private static final Map<String, String> INSTALL = Map.of(
      "qwen", "install Qwen Code with: npm install -g @qwen-code/qwen-code",
      "gemini", "install Gemini CLI with: npm install -g @google/gemini-cli");

  @Override
  public Integer call() throws Exception {
    if (Executables.find(command.get(0), System.getenv()).isEmpty()) {
      spec.commandLine().getErr().println("companion4j: cannot run " + command.get(0) + ": " + notFound(command.get(0)));
      return NOT_FOUND;
    }
    try (HeadlessCompanion headless = options.build(spec)) {
      Companion companion = headless.companion();
      companion.start();
      ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
      pb.environment().putAll(companion.terminalEnvironment());
      Process child;
      try {
        child = pb.start();
      } catch (IOException e) {
        spec.commandLine().getErr().println("companion4j: cannot run " + command.get(0) + ": " + e.getMessage());
        return NOT_FOUND;
      }
      // Once the CLI runs, its screen covers this line; `companion4j open` finds the page again.
      ReviewPages.announce(companion, options.open);
      // Ctrl-C belongs to the command (the CLIs use it to cancel a turn); the terminal sends it
      // to the whole process group, so this process must not die of it.
      Signal.handle(new Signal("INT"), signal -> {});
      return child.waitFor();
    }
  }

  /** One line on what to install, checked before any companion starts so nothing else is printed. */
  private static String notFound(String program) {
    String name = Path.of(program).getFileName().toString();
    return "not found" + (program.contains(File.separator) ? "" : " on PATH") + "; "
        + INSTALL.getOrDefault(name, "install it or give its full path");
  }
}
