package dev.companion4j.netbeans;

import static dev.companion4j.daemon.conversation.DaemonSource.TOKEN_VARIABLE;
import static dev.companion4j.daemon.conversation.DaemonSource.URL_VARIABLE;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.daemon.conversation.SpawnedDaemon;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.prefs.Preferences;
import org.netbeans.api.keyring.Keyring;
import org.openide.util.NbPreferences;

/**
 * The chat window's path: an ACP agent the chat starts itself ({@code qwen}, {@code gemini} or a
 * command line), or the {@code qwen serve} daemon: one that runs at an address (kept in the IDE's
 * preferences, its token in the NetBeans keyring, never in a preferences file), or one started for
 * the project; and the daemon adapter draft's environment fallback ({@code QWEN_IDE_DAEMON_URL},
 * {@code QWEN_SERVER_TOKEN}) when nothing is set here.
 */
final class DaemonChatSettings {
  /** The chat's path, and on the daemon path how the chat gets its daemon. */
  enum Mode {
    /** An ACP agent, {@link #agent()}, started in the main project and stopped with the chat. */
    ACP,
    /** A daemon that runs already, at {@link #url()}. */
    ATTACH,
    /** {@code qwen serve} started for the project on a free loopback port, stopped with the IDE. */
    SPAWN
  }

  private static final String MODE = "daemon.mode";
  private static final String URL = "daemon.url";
  private static final String COMMAND = "daemon.qwenCommand";
  private static final String AGENT = "acp.agent";
  private static final String TOKEN_KEY = "dev.companion4j.netbeans.daemonToken";

  private DaemonChatSettings() {}

  static Mode mode() {
    return switch (prefs().get(MODE, "")) {
      case "acp" -> Mode.ACP;
      case "spawn" -> Mode.SPAWN;
      case "attach" -> Mode.ATTACH;
      // Unchosen: the ACP path, the default, unless the environment names a daemon to attach to.
      default -> System.getenv().getOrDefault(URL_VARIABLE, "").isBlank() ? Mode.ACP : Mode.ATTACH;
    };
  }

  /** The ACP agent: {@code qwen}, {@code gemini} or a command line of its own. */
  static String agent() {
    String saved = prefs().get(AGENT, "");
    return saved.isBlank() ? "qwen" : saved;
  }

  /** The address saved here; empty when none is. */
  static String savedUrl() {
    return prefs().get(URL, "");
  }

  /** The daemon's address: the saved one, else the environment's; empty when neither is set. */
  static Optional<String> url() {
    String saved = savedUrl();
    String address = saved.isBlank() ? System.getenv().getOrDefault(URL_VARIABLE, "") : saved;
    return address.isBlank() ? Optional.empty() : Optional.of(address.strip());
  }

  /**
   * The daemon's token: the keyring's, else the environment's; empty for a daemon without one.
   * Never on the EDT: the keyring may ask for its master password first.
   */
  static Optional<String> token() {
    char[] saved = Keyring.read(TOKEN_KEY);
    if (saved != null && saved.length > 0) {
      return Optional.of(new String(saved));
    }
    String fromEnv = System.getenv().getOrDefault(TOKEN_VARIABLE, "");
    return fromEnv.isBlank() ? Optional.empty() : Optional.of(fromEnv.strip());
  }

  /** The program started in {@link Mode#SPAWN}: a name on the IDE's PATH or a full path. */
  static String qwenCommand() {
    String saved = prefs().get(COMMAND, "");
    return saved.isBlank() ? "qwen" : saved;
  }

  /**
   * Saves what the options panel shows; never on the EDT, for the keyring's sake.
   *
   * @param token the new token, kept in the keyring; {@code null} keeps the saved one, empty
   *     removes it
   * @param agent the ACP agent, see {@link #agent()}
   */
  static void save(Mode mode, String url, char[] token, String qwenCommand, String agent) {
    prefs().put(MODE, mode.name().toLowerCase(Locale.ROOT));
    prefs().put(URL, url == null ? "" : url.strip());
    prefs().put(COMMAND, qwenCommand == null ? "" : qwenCommand.strip());
    prefs().put(AGENT, agent == null ? "" : agent.strip());
    if (token == null) {
      return;
    }
    if (token.length == 0) {
      Keyring.delete(TOKEN_KEY);
    } else {
      Keyring.save(TOKEN_KEY, token, "Companion4J: the qwen serve daemon's token");
    }
  }

  /**
   * The daemon these settings name, for a chat in {@code project}, an open project's folder.
   *
   * @throws IOException saying what to set when they name none
   */
  static DaemonSource source(Path project) throws IOException {
    if (mode() == Mode.SPAWN) {
      return new SpawnedDaemon(qwenCommand(), project, System.getenv());
    }
    String address =
        url()
            .orElseThrow(
                () ->
                    new IOException(
                        "no daemon set: give its address in Tools > Options > Miscellaneous > CLI Companion, or set "
                            + URL_VARIABLE));
    try {
      return DaemonSource.running(address, token().orElse(null));
    } catch (IllegalArgumentException e) {
      throw new IOException("the daemon address is not usable: " + e.getMessage(), e);
    }
  }

  private static Preferences prefs() {
    return NbPreferences.forModule(DaemonChatSettings.class);
  }
}
