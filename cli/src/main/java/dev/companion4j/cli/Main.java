package dev.companion4j.cli;

import dev.companion4j.cli.attach.AttachCommand;
import dev.companion4j.cli.chat.ChatCommand;
import dev.companion4j.extension.hook.HookMain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
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
      OpenCommand.class,
      AttachCommand.class,
      StatusCommand.class,
      Main.ChatEntry.class,
      ExtensionCommand.class,
      McpCommand.class,
      BridgeCommand.class,
      SelfTestCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Start with: companion4j serve (or: companion4j run -- qwen), then qwen or gemini in the same folder, /ide enable.",
      "Each command has --help."
    })
public final class Main {
  private static final Set<String> STARTING_COMMANDS = Set.of("serve", "run");

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("hook")) {
      // Hooks run on every tool call: no command-line framework on their path.
      HookMain.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    // A connection refused on a companion's port is never tried again: by then the port may have
    // been bound by whoever came next, and the request carries the companion's token. (The JDK's
    // HTTP client retries a refused connection once unless told not to.)
    System.setProperty("jdk.httpclient.disableRetryConnect", "true");
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setUsageHelpAutoWidth(true);
    cl.setExecutionExceptionHandler(Main::failedToStart);
    return cl;
  }

  /**
   * A companion that cannot start says why in one line: the user can act on that, not on a stack
   * trace.
   */
  private static int failedToStart(Exception e, CommandLine command, CommandLine.ParseResult parsed)
      throws Exception {
    if (!(e instanceof IOException) || !STARTING_COMMANDS.contains(command.getCommandName())) {
      throw e;
    }
    LoggerFactory.getLogger(Main.class).debug("Start failed", e);
    command
        .getErr()
        .println(
            "companion4j: cannot start: "
                + Objects.toString(e.getMessage(), e.getClass().getSimpleName()));
    return 1;
  }

  /** {@code companion4j chat}: the chat reads its own options, {@code --help} included. */
  @Command(
      name = "chat",
      description = "A terminal chat on a Qwen Code `qwen serve` daemon (see chat --help).")
  static final class ChatEntry implements Callable<Integer> {
    @CommandLine.Unmatched List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
      return ChatCommand.run(args.toArray(String[]::new));
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {
        "companion4j " + (v == null ? "(not built as a jar)" : v), "Java " + Runtime.version()
      };
    }
  }
}
