package dev.companion4j.cli;

import dev.companion4j.cli.os.Executables;
import dev.companion4j.cli.remote.RemoteIde;
import dev.companion4j.cli.remote.StdioCommand;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
      "In a container it also tells Gemini CLI to dial 127.0.0.1 rather than host.docker.internal.",
      "With --remote it starts no companion: the CLIs reach one elsewhere through the given command.",
      "Exits with the command's exit code (127 when the command cannot be found)."
    })
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CompanionOptions options;

  @Option(
      names = "--remote",
      paramLabel = "COMMAND_LINE",
      description =
          "Start no companion here: the CLIs run this command line, which speaks MCP on its stdin and"
              + " stdout, e.g. 'ssh laptop companion4j bridge --map /workspaces/app=/home/me/app'. Split at"
              + " whitespace only, with no shell. Announced in discovery files that name the IDE, removed when"
              + " the command exits (see docs/remote.md).")
  String remote;

  @Parameters(
      paramLabel = "COMMAND",
      arity = "1..*",
      description = "The command to run, after --, e.g. -- qwen")
  List<String> command;

  /** The shell's exit code for a command that cannot be run. */
  private static final int NOT_FOUND = 127;

  private static final Map<String, String> INSTALL =
      Map.of(
          "qwen", "install Qwen Code with: npm install -g @qwen-code/qwen-code",
          "gemini", "install Gemini CLI with: npm install -g @google/gemini-cli");

  @Override
  public Integer call() throws Exception {
    if (remote != null) {
      return runRemote();
    }
    if (!commandFound()) {
      return NOT_FOUND;
    }
    try (HeadlessCompanion headless = options.build(spec)) {
      Companion companion = headless.companion();
      companion.start();
      ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
      pb.environment().putAll(companion.terminalEnvironment());
      Process child = start(pb);
      if (child == null) {
        return NOT_FOUND;
      }
      ReviewPages.announceBeforeCli(companion, options.open);
      return waitFor(child);
    }
  }

  private int runRemote() throws Exception {
    StdioCommand stdio;
    try {
      stdio = StdioCommand.parse(remote);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--remote " + e.getMessage());
    }
    if (options.open) {
      throw new ParameterException(
          spec.commandLine(),
          "--open shows a local companion's review page; with --remote, reviews happen where the companion runs");
    }
    // The roots as the CLI sees them; the companion elsewhere sees them mapped.
    List<Path> roots = options.roots(spec);
    IdeInfo ideInfo = options.ideInfo(spec);
    if (Executables.find(stdio.command(), System.getenv()).isEmpty()) {
      // The CLIs say no more than "failed to connect" when they cannot start it.
      throw new ParameterException(
          spec.commandLine(),
          "--remote: cannot run "
              + stdio.command()
              + ": not found"
              + (stdio.command().contains(File.separator) ? "" : " on PATH"));
    }
    if (!commandFound()) {
      return NOT_FOUND;
    }
    try (RemoteIde ide =
        RemoteIde.announce(stdio, roots, ideInfo, System.getenv(), ProcessHandle.current().pid())) {
      ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
      ide.applyTo(pb.environment());
      Process child = start(pb);
      return child == null ? NOT_FOUND : waitFor(child);
    }
  }

  private boolean commandFound() {
    if (Executables.find(command.get(0), System.getenv()).isEmpty()) {
      spec.commandLine()
          .getErr()
          .println("companion4j: cannot run " + command.get(0) + ": " + notFound(command.get(0)));
      return false;
    }
    return true;
  }

  /** The started command, or null when it cannot start (said on stderr). */
  private Process start(ProcessBuilder pb) {
    try {
      return pb.start();
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("companion4j: cannot run " + command.get(0) + ": " + e.getMessage());
      return null;
    }
  }

  private static int waitFor(Process child) throws InterruptedException {
    // Ctrl-C belongs to the command (the CLIs use it to cancel a turn); the terminal sends it
    // to the whole process group, so this process must not die of it.
    Signal.handle(new Signal("INT"), signal -> {});
    return child.waitFor();
  }

  /**
   * One line on what to install, checked before any companion starts so nothing else is printed.
   */
  private static String notFound(String program) {
    String name = Path.of(program).getFileName().toString();
    return "not found"
        + (program.contains(File.separator) ? "" : " on PATH")
        + "; "
        + INSTALL.getOrDefault(name, "install it or give its full path");
  }
}
