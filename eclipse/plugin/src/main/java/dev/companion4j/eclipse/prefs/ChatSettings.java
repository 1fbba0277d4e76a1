package dev.companion4j.eclipse.prefs;

import java.util.Locale;
import java.util.Optional;
import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.eclipse.equinox.security.storage.StorageException;

/**
 * The chat view's settings, as Window > Preferences > CLI Companion saved them: read them with
 * {@link #read()}, the daemon's token apart with {@link #daemonToken()} (it is never part of a
 * record or of plain preferences). Values are as saved; the chat applies its own environment
 * fallbacks ({@code QWEN_IDE_DAEMON_URL}, {@code QWEN_SERVER_TOKEN}) when one is empty.
 *
 * @param mode the chat's path
 * @param agent the ACP agent: {@code qwen}, {@code gemini} or a command line
 * @param daemonUrl the address of a running {@code qwen serve} daemon, or empty
 * @param qwenCommand the program {@link Mode#SPAWN} starts: a name on the PATH or a full path
 */
public record ChatSettings(Mode mode, String agent, String daemonUrl, String qwenCommand) {
  /** The chat's path, and on the daemon path how the chat gets its daemon. */
  public enum Mode {
    /** An ACP agent the chat starts itself and stops with the chat. */
    ACP,
    /** A {@code qwen serve} daemon that runs already, at {@link #daemonUrl()}. */
    ATTACH,
    /** {@code qwen serve} started for the project, stopped with the IDE. */
    SPAWN;

    String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static final String MODE = "chat.mode";
  static final String AGENT = "chat.acpAgent";
  static final String URL = "chat.daemonUrl";
  static final String QWEN_COMMAND = "chat.qwenCommand";
  static final String DEFAULT_AGENT = "qwen";
  static final String DEFAULT_QWEN_COMMAND = "qwen";

  /** The secure storage node and key of the daemon's token. */
  static final String TOKEN_NODE = "dev.companion4j.eclipse/daemon";

  static final String TOKEN_KEY = "token";

  /** The settings as saved now; on any thread. */
  public static ChatSettings read() {
    var node = CompanionPreferences.node();
    Mode mode = defaultMode();
    for (Mode m : Mode.values()) {
      if (m.key().equals(node.get(MODE, ""))) {
        mode = m;
      }
    }
    return new ChatSettings(
        mode,
        orDefault(node.get(AGENT, ""), DEFAULT_AGENT),
        node.get(URL, "").strip(),
        orDefault(node.get(QWEN_COMMAND, ""), DEFAULT_QWEN_COMMAND));
  }

  /** Unchosen: the ACP path, the default, unless the environment names a daemon to attach to. */
  static Mode defaultMode() {
    return System.getenv().getOrDefault("QWEN_IDE_DAEMON_URL", "").isBlank()
        ? Mode.ACP
        : Mode.ATTACH;
  }

  /**
   * The daemon's token from Eclipse's secure storage; empty when none is saved. Never on the UI
   * thread: the storage may ask for its master password first.
   *
   * @throws StorageException when the storage cannot be read (no password provider, wrong password)
   */
  public static Optional<String> daemonToken() throws StorageException {
    ISecurePreferences root = SecurePreferencesFactory.getDefault();
    if (root == null || !root.nodeExists(TOKEN_NODE)) {
      return Optional.empty();
    }
    String token = root.node(TOKEN_NODE).get(TOKEN_KEY, "");
    return token == null || token.isEmpty() ? Optional.empty() : Optional.of(token);
  }

  private static String orDefault(String saved, String fallback) {
    return saved.isBlank() ? fallback : saved.strip();
  }
}
