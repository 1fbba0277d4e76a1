package dev.companion4j.eclipse.chat;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.daemon.conversation.SpawnedDaemon;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;

/**
 * What the chat talks to, read from the plugin's instance preferences (node {@code
 * dev.companion4j.eclipse}, the workspace's {@code
 * .metadata/.plugins/org.eclipse.core.runtime/.settings/dev.companion4j.eclipse.prefs}), under the
 * keys the preference page saves: the ACP agent the chat starts (the default: {@code qwen --acp}),
 * or the {@code qwen serve} daemon, attached to or started. The daemon's token is never stored
 * here: it comes from {@code QWEN_SERVER_TOKEN}.
 *
 * @param kind the chat's path
 * @param agent on the ACP path: {@code qwen}, {@code gemini}, or a command line of its own
 * @param daemonUrl for {@link Kind#ATTACH}: the daemon's address; empty takes {@code
 *     QWEN_IDE_DAEMON_URL}
 * @param qwenCommand for {@link Kind#SPAWN}: the command that runs {@code qwen}
 */
record ChatSettings(Kind kind, String agent, String daemonUrl, String qwenCommand) {
  static final String NODE = "dev.companion4j.eclipse";
  static final String MODE_KEY = "chat.mode";
  static final String AGENT_KEY = "chat.acpAgent";
  static final String DAEMON_URL_KEY = "chat.daemonUrl";
  static final String QWEN_COMMAND_KEY = "chat.qwenCommand";

  /** The chat's path, and on the daemon path how it gets its daemon. */
  enum Kind {
    ACP,
    ATTACH,
    SPAWN
  }

  /** The settings now; unchosen, the ACP path unless the environment names a daemon. */
  static ChatSettings read() {
    IEclipsePreferences prefs = InstanceScope.INSTANCE.getNode(NODE);
    Kind kind =
        System.getenv().getOrDefault(DaemonSource.URL_VARIABLE, "").isBlank()
            ? Kind.ACP
            : Kind.ATTACH;
    String saved = prefs.get(MODE_KEY, "").strip();
    for (Kind k : Kind.values()) {
      if (k.name().toLowerCase(Locale.ROOT).equals(saved)) {
        kind = k;
      }
    }
    String agent = prefs.get(AGENT_KEY, "").strip();
    String qwen = prefs.get(QWEN_COMMAND_KEY, "").strip();
    return new ChatSettings(
        kind,
        agent.isEmpty() ? "qwen" : agent,
        prefs.get(DAEMON_URL_KEY, "").strip(),
        qwen.isEmpty() ? "qwen" : qwen);
  }

  /**
   * The daemon these settings name for a chat in {@code project}: the one at the address (set here,
   * else {@code QWEN_IDE_DAEMON_URL}), or a {@code qwen serve} the chat starts there.
   *
   * @throws IOException saying what to set when no address is given, or why it is not usable
   */
  DaemonSource daemon(Path project) throws IOException {
    if (kind == Kind.SPAWN) {
      return new SpawnedDaemon(qwenCommand, project, System.getenv());
    }
    String url =
        daemonUrl.isEmpty()
            ? System.getenv().getOrDefault(DaemonSource.URL_VARIABLE, "")
            : daemonUrl;
    if (url.isBlank()) {
      throw new IOException(
          "no daemon address: set "
              + DAEMON_URL_KEY
              + " or "
              + DaemonSource.URL_VARIABLE
              + ", or let the chat start qwen serve");
    }
    try {
      return DaemonSource.running(url, System.getenv(DaemonSource.TOKEN_VARIABLE));
    } catch (IllegalArgumentException e) {
      throw new IOException("the daemon address is not usable: " + e.getMessage(), e);
    }
  }
}
