package dev.companion4j.cli;

import dev.companion4j.cli.chat.ChatCommand;
import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code companion4j} command. */
@Command(
    name = "companion4j",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "An IDE companion for Qwen Code and Gemini CLI, for any editor.",
    subcommands = {
      ServeCommand.class,
      RunCommand.class,
      StatusCommand.class,
      SelfTestCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main {

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("chat")) {
      // The chat parses its own arguments.
      System.exit(ChatCommand.run(Arrays.copyOfRange(args, 1, args.length)));
    }
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setUsageHelpAutoWidth(true);
    return cl;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"companion4j " + (v == null ? "dev" : v)};
    }
  }
}
