package dev.companion4j.cli;

import dev.companion4j.extension.install.ExtensionInstaller;
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
    subcommands = {ExtensionCommand.Install.class})
final class ExtensionCommand {

  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description = {
        "Installs the extension into a CLI with the CLI's own 'extensions install' (or 'link').",
        "Hooks, policies, agents, /ide: commands and the IDE tools then work in every session."
      })
  static final class Install implements Callable<Integer> {
    @Option(names = "--cli", required = true, paramLabel = "CLI", description = "qwen or gemini")
    String cli;

    @Option(names = "--link", description = "Link the staged extension instead of copying it, so a later install updates it in place.")
    boolean link;

    @Option(names = "--cli-command", paramLabel = "PATH", description = "How to run the CLI (default: qwen or gemini on the PATH).")
    String cliCommand;

    @Override
    public Integer call() throws Exception {
      ExtensionInstaller.Cli target = ExtensionInstaller.Cli.of(cli);
      String state = System.getenv("COMPANION4J_STATE");
      Path stateDir = state != null ? Path.of(state) : Path.of(System.getProperty("user.home"), ".companion4j");
      return new ExtensionInstaller(System.out).install(new ExtensionInstaller.Request(
          target, List.of(cliCommand != null ? cliCommand : cli), link, stateDir));
    }
  }
}
