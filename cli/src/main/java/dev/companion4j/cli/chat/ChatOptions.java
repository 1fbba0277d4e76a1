package dev.companion4j.cli.chat;

import dev.companion4j.daemon.ApprovalMode;
import dev.companion4j.daemon.DaemonClient;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The arguments of {@code companion4j chat}.
 *
 * @param daemonUrl the daemon's base URL
 * @param token the bearer token read from {@code --token-env}, or {@code null}
 * @param tokenEnv the name of the variable the token came from, or {@code null}
 * @param workspace the workspace on the daemon's host, or {@code null} for the daemon's primary one
 * @param approvalMode the approval mode for a new session
 * @param newSession whether to start a new session instead of attaching to the shared one
 * @param help whether {@code --help} was asked for
 * @param agent the ACP agent to chat with ({@code qwen}, {@code gemini} or a command), or {@code
 *     null} for the daemon path
 * @param agentMode the ACP mode to start in, as the agent names it, or {@code null} for {@code
 *     default}
 * @param loadSession an ACP session to load, or {@code null} for a new one
 */
record ChatOptions(
    String daemonUrl,
    String token,
    String tokenEnv,
    String workspace,
    ApprovalMode approvalMode,
    boolean newSession,
    boolean help,
    String agent,
    String agentMode,
    String loadSession) {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: companion4j chat [--daemon URL] [--token-env VAR] [--workspace DIR]",
          "                        [--approval-mode MODE] [--new]",
          "       companion4j chat --agent qwen|gemini|COMMAND [--workspace DIR]",
          "                        [--approval-mode MODE] [--load SESSION]",
          "",
          "A terminal chat on a running `qwen serve` daemon, or with --agent on an agent this",
          "chat starts itself over the Agent Client Protocol (`qwen --acp`, `gemini --acp`, or",
          "any ACP agent's command line, split at spaces).",
          "",
          "  --agent AGENT         qwen, gemini or an ACP command: the ACP path, no daemon needed",
          "  --load SESSION        (with --agent) load an earlier session; its history replays",
          "  --daemon URL          the daemon (default " + DaemonClient.DEFAULT_URL + ")",
          "  --token-env VAR       read the daemon's bearer token from environment variable VAR",
          "                        (required for a daemon that is not on this machine)",
          "  --workspace DIR       the workspace, an absolute path on the daemon's host",
          "                        (default: the daemon's primary workspace; with --agent, the",
          "                        folder the agent works in, default the current one)",
          "  --approval-mode MODE  plan, default, auto-edit, auto or yolo for a new session",
          "                        (default: default, which asks before edits and commands;",
          "                        with --agent, one of the modes the agent offers)",
          "  --new                 start a new session instead of joining the workspace's shared one",
          "",
          "In the chat: type a prompt and press Enter. /model NAME switches the model, /quit",
          "leaves. Ctrl-C cancels the running turn; with no turn running it leaves the chat.",
          "With --agent also: /mode ID switches the mode, /cancel cancels the turn, /commands",
          "lists the agent's own slash commands, which run when typed.");

  /** The command line as picocli reads it; {@link #parse} turns it into the record. */
  @Command(name = "chat")
  static final class Arguments {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true)
    boolean help;

    @Option(names = "--daemon")
    String url = DaemonClient.DEFAULT_URL;

    @Option(names = "--token-env")
    String tokenEnv;

    @Option(names = "--workspace")
    String workspace;

    @Option(names = "--approval-mode")
    String approvalMode;

    @Option(names = "--new")
    boolean newSession;

    @Option(names = "--agent")
    String agent;

    @Option(names = "--load")
    String load;
  }

  /** Parses the arguments after {@code chat}; the message of the exception says what is wrong. */
  static ChatOptions parse(String[] args, Map<String, String> env) {
    Arguments parsed = new Arguments();
    try {
      new CommandLine(parsed).parseArgs(args);
    } catch (CommandLine.UnmatchedArgumentException e) {
      throw new IllegalArgumentException("unknown argument '" + e.getUnmatched().get(0) + "'");
    } catch (CommandLine.MissingParameterException e) {
      throw new IllegalArgumentException(optionName(e) + " needs a value");
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    if (parsed.help) {
      return new ChatOptions(parsed.url, null, null, null, null, false, true, null, null, null);
    }
    if (parsed.agent != null) {
      return agentOptions(parsed);
    }
    if (parsed.load != null) {
      throw new IllegalArgumentException("--load goes with --agent");
    }
    String url = parsed.url;
    String tokenEnv = parsed.tokenEnv;
    String workspace = parsed.workspace;
    // The daemon's own default edits the workspace without asking; a chat asks unless told
    // otherwise.
    ApprovalMode mode =
        parsed.approvalMode == null
            ? ApprovalMode.DEFAULT
            : ApprovalMode.parse(parsed.approvalMode);
    boolean newSession = parsed.newSession;
    String token = null;
    if (tokenEnv != null) {
      if (!tokenEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException(
            "--token-env takes a variable name, e.g. QWEN_SERVER_TOKEN");
      }
      token = env.get(tokenEnv);
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException(
            "environment variable " + tokenEnv + " is not set or empty");
      }
    }
    if (workspace != null
        && !(workspace.startsWith("/") || workspace.matches("[A-Za-z]:[\\\\/].*"))) {
      throw new IllegalArgumentException(
          "--workspace must be an absolute path on the daemon's host, got '" + workspace + "'");
    }
    return new ChatOptions(
        url, token, tokenEnv, workspace, mode, newSession, false, null, null, null);
  }

  /** The ACP path: no daemon, so none of the daemon's options apply. */
  private static ChatOptions agentOptions(Arguments parsed) {
    if (parsed.agent.isBlank()) {
      throw new IllegalArgumentException("--agent needs qwen, gemini or an agent's command");
    }
    if (parsed.tokenEnv != null
        || parsed.newSession
        || !parsed.url.equals(DaemonClient.DEFAULT_URL)) {
      throw new IllegalArgumentException(
          "--agent starts the agent itself: --daemon, --token-env and --new do not apply");
    }
    return new ChatOptions(
        null,
        null,
        null,
        parsed.workspace,
        null,
        false,
        false,
        parsed.agent,
        parsed.approvalMode,
        parsed.load);
  }

  private static String optionName(CommandLine.MissingParameterException e) {
    return e.getMissing().get(0) instanceof CommandLine.Model.OptionSpec option
        ? option.longestName()
        : "an argument";
  }

  @Override
  public String toString() {
    if (agent != null) {
      return "ChatOptions[agent " + agent + "]";
    }
    return "ChatOptions["
        + daemonUrl
        + ", token "
        + (token == null ? "none" : "from " + tokenEnv)
        + "]";
  }
}
