package dev.companion4j.cli;

import dev.companion4j.engine.Companion;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** {@code companion4j run -- qwen}: a companion for the lifetime of one command. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a companion, runs the command with the IDE variables set, and stops when it exits.",
      "Exits with the command's exit code."
    })
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CompanionOptions options;

  @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command to run, after --, e.g. -- qwen")
  List<String> command;

  @Override
  public Integer call() throws Exception {
    try (HeadlessCompanion headless = options.build(spec)) {
      Companion companion = headless.companion();
      companion.start();
      ReviewPages.announce(companion, options.open);
      ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
      pb.environment().putAll(companion.terminalEnvironment());
      Process child;
      try {
        child = pb.start();
      } catch (IOException e) {
        throw new ParameterException(spec.commandLine(), "cannot run " + command.get(0) + ": " + e.getMessage());
      }
      // Ctrl-C belongs to the command (the CLIs use it to cancel a turn); the terminal sends it
      // to the whole process group, so this process must not die of it.
      Signal.handle(new Signal("INT"), signal -> {});
      return child.waitFor();
    }
  }
}
