package dev.companion4j.netbeans;

import java.util.Optional;
import java.util.prefs.Preferences;
import org.netbeans.api.keyring.Keyring;
import org.openide.util.NbPreferences;

/**
 * Where the chat window finds the {@code qwen serve} daemon: the address in the IDE's
 * preferences, the token in the NetBeans keyring (never in a preferences file), and the daemon
 * adapter draft's environment fallback ({@code QWEN_IDE_DAEMON_URL}, {@code QWEN_SERVER_TOKEN}).
 */
final class DaemonChatSettings {
  private static final String URL = "daemon.url";
  private static final String TOKEN_KEY = "dev.companion4j.netbeans.daemonToken";

  private DaemonChatSettings() {}

  /** The daemon's address, or empty when none is set here or in the environment. */
  static Optional<String> url() {
    String saved = prefs().get(URL, "");
    String address = saved.isBlank() ? System.getenv().getOrDefault("QWEN_IDE_DAEMON_URL", "") : saved;
    return address.isBlank() ? Optional.empty() : Optional.of(address.strip());
  }

  /** The daemon's token, or empty for a daemon on loopback without one. */
  static Optional<String> token() {
    char[] saved = Keyring.read(TOKEN_KEY);
    if (saved != null && saved.length > 0) {
      return Optional.of(new String(saved));
    }
    String fromEnv = System.getenv().getOrDefault("QWEN_SERVER_TOKEN", "");
    return fromEnv.isBlank() ? Optional.empty() : Optional.of(fromEnv.strip());
  }

  static void setUrl(String url) {
    prefs().put(URL, url == null ? "" : url.strip());
  }

  /** Keeps {@code token} in the keyring; an empty one removes it. */
  static void setToken(char[] token) {
    if (token == null || token.length == 0) {
      Keyring.delete(TOKEN_KEY);
    } else {
      Keyring.save(TOKEN_KEY, token, "Companion4J: the qwen serve daemon's token");
    }
  }

  private static Preferences prefs() {
    return NbPreferences.forModule(DaemonChatSettings.class);
  }
}
