package dev.companion4j.cli;

import dev.companion4j.cli.attach.AttachCommand;
import dev.companion4j.cli.chat.ChatCommand;
import dev.companion4j.extension.hook.HookMain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code companion4j} command. */
@Command(
    name = "companion4j",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "An IDE companion for Qwen Code and Gemini CLI, for any editor.",
    footer = {
      "",
      "Start with: companion4j serve (or: companion4j run -- qwen), then qwen or gemini in the same folder, /ide enable.",
      "Each command has --help."
    })
public final class Main {
  private static final Set<String> STARTING_COMMANDS = Set.of("serve", "run");

  /**
   * The subcommands, in the order help lists them. picocli reads a command's annotations when it is
   * added, some milliseconds each on a cold JVM: a command line that names one adds only that one.
   */
  private static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

  private static Map<String, Supplier<Object>> subcommands() {
    Map<String, Supplier<Object>> all = new LinkedHashMap<>();
    all.put("serve", ServeCommand::new);
    all.put("run", RunCommand::new);
    all.put("open", OpenCommand::new);
    all.put("attach", AttachCommand::new);
    all.put("status", StatusCommand::new);
    all.put("chat", ChatEntry::new);
    all.put("extension", ExtensionCommand::new);
    all.put("mcp", McpCommand::new);
    all.put("bridge", BridgeCommand::new);
    all.put("selftest", SelfTestCommand::new);
    // Not a method reference: recording the ahead-of-time cache (JDK 25.0.3) crashes on one that
    // names a class the cache cannot hold, as picocli's, compiled for Java 5, and no cache is made.
    all.put("help", () -> new CommandLine.HelpCommand());
    return Collections.unmodifiableMap(all);
  }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("hook")) {
      // Hooks run on every tool call: no command-line framework on their path.
      HookMain.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    StartupMarks.mark("main");
    // A connection refused on a companion's port is never tried again: by then the port may have
    // been bound by whoever came next, and the request carries the companion's token. (The JDK's
    // HTTP client retries a refused connection once unless told not to.)
    System.setProperty("jdk.httpclient.disableRetryConnect", "true");
    System.exit(commandLine(args).execute(args));
  }

  /**
   * The command line for {@code args}: with only the subcommand its first word names, or with all
   * of them when it names none (help, the version, a mistyped command) or {@code help}, which
   * describes the others.
   */
  public static CommandLine commandLine(String... args) {
    CommandLine cl = new CommandLine(new Main());
    Supplier<Object> named =
        args.length == 0 || args[0].equals("help") ? null : SUBCOMMANDS.get(args[0]);
    if (named != null) {
      cl.addSubcommand(named.get());
    } else {
      SUBCOMMANDS.values().forEach(command -> cl.addSubcommand(command.get()));
    }
    // Set after the subcommands are added: picocli passes these only to those it has by then.
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
