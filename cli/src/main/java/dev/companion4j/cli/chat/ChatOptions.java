package dev.companion4j.cli.chat;

import dev.companion4j.daemon.ApprovalMode;
import dev.companion4j.daemon.DaemonClient;
import java.util.Map;

/**
 * The arguments of {@code companion4j chat}.
 *
 * @param daemonUrl the daemon's base URL
 * @param token the bearer token read from {@code --token-env}, or {@code null}
 * @param tokenEnv the name of the variable the token came from, or {@code null}
 * @param workspace the workspace on the daemon's host, or {@code null} for the daemon's primary one
 * @param approvalMode the approval mode for a new session, or {@code null} for the daemon's default
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
          "                        (default: the daemon's; `default` asks before every edit)",
          "  --new                 start a new session instead of joining the workspace's shared one",
          "",
          "In the chat: type a prompt and press Enter. /model NAME switches the model, /quit",
          "leaves. Ctrl-C cancels the running turn; with no turn running it leaves the chat.");

  /** Parses the arguments after {@code chat}; the message of the exception says what is wrong. */
  static ChatOptions parse(String[] args, Map<String, String> env) {
    String url = DaemonClient.DEFAULT_URL;
    String tokenEnv = null;
    String workspace = null;
    ApprovalMode mode = null;
    boolean newSession = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      switch (name) {
        case "-h":
        case "--help":
          return new ChatOptions(url, null, null, null, null, false, true);
        case "--new":
          newSession = true;
          break;
        case "--daemon":
        case "--token-env":
        case "--workspace":
        case "--approval-mode":
          if (value == null) {
            if (i + 1 >= args.length) {
              throw new IllegalArgumentException(name + " needs a value");
            }
            value = args[++i];
          }
          if (name.equals("--daemon")) {
            url = value;
          } else if (name.equals("--token-env")) {
            tokenEnv = value;
          } else if (name.equals("--workspace")) {
            workspace = value;
          } else {
            mode = ApprovalMode.parse(value);
          }
          break;
        default:
          throw new IllegalArgumentException("unknown argument '" + arg + "'");
      }
    }
    String token = null;
    if (tokenEnv != null) {
      if (!tokenEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException("--token-env takes a variable name, e.g. QWEN_SERVER_TOKEN");
      }
      token = env.get(tokenEnv);
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("environment variable " + tokenEnv + " is not set or empty");
      }
    }
    if (workspace != null && !(workspace.startsWith("/") || workspace.matches("[A-Za-z]:[\\\\/].*"))) {
      throw new IllegalArgumentException(
          "--workspace must be an absolute path on the daemon's host, got '" + workspace + "'");
    }
    return new ChatOptions(url, token, tokenEnv, workspace, mode, newSession, false);
  }

  @Override
  public String toString() {
    return "ChatOptions[" + daemonUrl + ", token " + (token == null ? "none" : "from " + tokenEnv) + "]";
  }
}
