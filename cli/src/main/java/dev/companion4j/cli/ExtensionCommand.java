package dev.companion4j.cli;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.install.ExtensionInstaller;
import java.io.Console;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code companion4j extension}: the Companion4J extension for Qwen Code and Gemini CLI. */
@Command(
    name = "extension",
    mixinStandardHelpOptions = true,
    description = "The Companion4J extension for Qwen Code and Gemini CLI.",
    subcommands = {ExtensionCommand.Install.class, ExtensionCommand.Uninstall.class})
final class ExtensionCommand {

  /** What install and uninstall share: which CLI, how to run it, and who answers its questions. */
  abstract static class CliOptions {
    @Option(names = "--cli", required = true, paramLabel = "CLI", description = "qwen or gemini")
    String cli;

    @Option(
        names = "--cli-command",
        paramLabel = "PATH",
        description = "How to run the CLI (default: qwen or gemini on the PATH).")
    String cliCommand;

    @Option(
        names = {"-y", "--yes"},
        description = {
          "Give the CLI's consent and setting defaults without asking, and trust the folder the extension is staged in;",
          "the default without a terminal. Any other question the CLI asks stops the command."
        })
    boolean yes;

    ExtensionInstaller.Request request(boolean link) {
      String state = System.getenv("COMPANION4J_STATE");
      Path stateDir =
          state != null
              ? Path.of(state)
              : DiscoveryLocations.home(System.getenv()).resolve(".companion4j");
      return new ExtensionInstaller.Request(
          ExtensionInstaller.Cli.of(cli),
          List.of(cliCommand != null ? cliCommand : cli),
          link,
          stateDir,
          !yes && atTerminal());
    }
  }

  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description = {
        "Installs the extension into a CLI with the CLI's own 'extensions install' (or 'link').",
        "Hooks, policies, agents, /ide: commands and the IDE tools then work in every session.",
        "At a terminal the CLI asks its own questions (consent, settings, folder trust) and you answer them."
      })
  static final class Install extends CliOptions implements Callable<Integer> {
    @Option(
        names = "--link",
        description =
            "Link the staged extension instead of copying it, so a later install updates it in place.")
    boolean link;

    @Override
    public Integer call() throws Exception {
      return new ExtensionInstaller(System.out).install(request(link));
    }
  }

  @Command(
      name = "uninstall",
      mixinStandardHelpOptions = true,
      description =
          "Uninstalls the extension with the CLI's own 'extensions uninstall' and removes the staged copy.")
  static final class Uninstall extends CliOptions implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return new ExtensionInstaller(System.out).uninstall(request(false));
    }
  }

  /**
   * Whether a person is at this process's terminal. From Java 22 {@code System.console()} answers
   * for redirected streams too, and only {@code Console.isTerminal()} tells.
   */
  private static boolean atTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (NoSuchMethodException beforeJava22) {
      return true;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }
}
