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
 */
record ChatOptions(
    String daemonUrl,
    String token,
    String tokenEnv,
    String workspace,
    ApprovalMode approvalMode,
    boolean newSession,
    boolean help) {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: companion4j chat [--daemon URL] [--token-env VAR] [--workspace DIR]",
          "                        [--approval-mode MODE] [--new]",
          "",
          "A terminal chat on a running `qwen serve` daemon.",
          "",
          "  --daemon URL          the daemon (default " + DaemonClient.DEFAULT_URL + ")",
          "  --token-env VAR       read the daemon's bearer token from environment variable VAR",
          "                        (required for a daemon that is not on this machine)",
          "  --workspace DIR       the workspace, an absolute path on the daemon's host",
          "                        (default: the daemon's primary workspace)",
          "  --approval-mode MODE  plan, default, auto-edit, auto or yolo for a new session",
          "                        (default: default, which asks before edits and commands)",
          "  --new                 start a new session instead of joining the workspace's shared one",
          "",
          "In the chat: type a prompt and press Enter. /model NAME switches the model, /quit",
          "leaves. Ctrl-C cancels the running turn; with no turn running it leaves the chat.");

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
      return new ChatOptions(parsed.url, null, null, null, null, false, true);
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
    return new ChatOptions(url, token, tokenEnv, workspace, mode, newSession, false);
  }

  private static String optionName(CommandLine.MissingParameterException e) {
    return e.getMissing().get(0) instanceof CommandLine.Model.OptionSpec option
        ? option.longestName()
        : "an argument";
  }

  @Override
  public String toString() {
    return "ChatOptions["
        + daemonUrl
        + ", token "
        + (token == null ? "none" : "from " + tokenEnv)
        + "]";
  }
}
