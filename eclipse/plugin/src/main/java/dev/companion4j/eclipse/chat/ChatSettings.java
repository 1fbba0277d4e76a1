package dev.companion4j.eclipse.chat;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.daemon.conversation.SpawnedDaemon;
import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;

/**
 * What the chat talks to, read from the plugin's instance preferences (the workspace's {@code
 * .metadata/.plugins/org.eclipse.core.runtime/.settings/dev.companion4j.eclipse.prefs}): the ACP
 * agent the chat starts (the default: {@code qwen --acp}), or the {@code qwen serve} daemon. The
 * daemon's token is never stored here: it comes from {@code QWEN_SERVER_TOKEN}.
 *
 * @param kind {@link Kind#ACP} or {@link Kind#DAEMON}
 * @param agent on the ACP path: {@code qwen}, {@code gemini}, or a command line of its own
 * @param daemonUrl on the daemon path: a running daemon's address; empty starts {@code qwen serve}
 * @param qwenCommand on the daemon path without an address: the command that runs {@code qwen}
 */
record ChatSettings(Kind kind, String agent, String daemonUrl, String qwenCommand) {
  static final String NODE = "dev.companion4j.eclipse";
  static final String PATH_KEY = "chat.path";
  static final String AGENT_KEY = "chat.agent";
  static final String DAEMON_URL_KEY = "chat.daemonUrl";
  static final String QWEN_COMMAND_KEY = "chat.qwenCommand";

  /** Which of the two the chat talks to. */
  enum Kind {
    ACP,
    DAEMON
  }

  /**
   * The settings now; an unknown path is an error rather than a guess.
   *
   * @throws IllegalArgumentException naming the setting that is not usable
   */
  static ChatSettings read() {
    IEclipsePreferences prefs = InstanceScope.INSTANCE.getNode(NODE);
    String path = prefs.get(PATH_KEY, "acp").strip();
    Kind chosen;
    if (path.equalsIgnoreCase("acp")) {
      chosen = Kind.ACP;
    } else if (path.equalsIgnoreCase("daemon")) {
      chosen = Kind.DAEMON;
    } else {
      throw new IllegalArgumentException(
          "the chat setting " + PATH_KEY + " is neither acp nor daemon: " + path);
    }
    String agent = prefs.get(AGENT_KEY, "qwen").strip();
    return new ChatSettings(
        chosen,
        agent.isEmpty() ? "qwen" : agent,
        prefs.get(DAEMON_URL_KEY, "").strip(),
        prefs.get(QWEN_COMMAND_KEY, "qwen").strip());
  }

  /**
   * The daemon these settings name for a chat in {@code project}: the address set here, else {@code
   * QWEN_IDE_DAEMON_URL}, else a {@code qwen serve} the chat starts there.
   *
   * @throws IOException saying why the address is not usable
   */
  DaemonSource daemon(Path project) throws IOException {
    String url = daemonUrl.isEmpty() ? System.getenv(DaemonSource.URL_VARIABLE) : daemonUrl;
    if (url == null || url.isBlank()) {
      return new SpawnedDaemon(qwenCommand, project, System.getenv());
    }
    try {
      return DaemonSource.running(url, System.getenv(DaemonSource.TOKEN_VARIABLE));
    } catch (IllegalArgumentException e) {
      throw new IOException("the daemon address is not usable: " + e.getMessage(), e);
    }
  }
}
