package dev.companion4j.eclipse.prefs;

import dev.companion4j.engine.discovery.DiscoveryTarget;
import java.util.EnumSet;
import java.util.Set;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.ui.preferences.ScopedPreferenceStore;

/**
 * The companion's settings from Window > Preferences > CLI Companion, in the workspace's instance
 * preferences: which CLIs' discovery files are written, and how many CLIs may connect at once.
 */
public final class CompanionPreferences {
  static final String NODE = "dev.companion4j.eclipse";
  static final String QWEN = "discovery.qwenCode";
  static final String GEMINI = "discovery.geminiCli";
  static final String MAX_CLIENTS = "maxClients";

  /** The engine's own default cap. */
  static final int DEFAULT_MAX_CLIENTS = 32;

  /** The largest cap the page accepts: more CLIs than that is no desktop use. */
  static final int LIMIT_MAX_CLIENTS = 256;

  /** The keys whose change needs a new companion (the engine takes them when it is built). */
  private static final Set<String> RESTARTING = Set.of(QWEN, GEMINI, MAX_CLIENTS);

  private CompanionPreferences() {}

  public static Set<DiscoveryTarget> targets() {
    Set<DiscoveryTarget> targets = EnumSet.noneOf(DiscoveryTarget.class);
    if (node().getBoolean(QWEN, true)) {
      targets.add(DiscoveryTarget.QWEN_CODE);
    }
    if (node().getBoolean(GEMINI, true)) {
      targets.add(DiscoveryTarget.GEMINI_CLI);
    }
    return targets;
  }

  /** The most CLIs at once; a value out of range (edited by hand) falls back to the default. */
  public static int maxClients() {
    int max = node().getInt(MAX_CLIENTS, DEFAULT_MAX_CLIENTS);
    return max >= 1 && max <= LIMIT_MAX_CLIENTS ? max : DEFAULT_MAX_CLIENTS;
  }

  /**
   * Calls {@code restart} (on the thread that saved the preferences) when a setting the running
   * companion was built with changes.
   */
  public static void onChange(Runnable restart) {
    node()
        .addPreferenceChangeListener(
            e -> {
              if (RESTARTING.contains(e.getKey())) {
                restart.run();
              }
            });
  }

  static IEclipsePreferences node() {
    return InstanceScope.INSTANCE.getNode(NODE);
  }

  /** The store the preference page edits, with the defaults the getters above fall back to. */
  static IPreferenceStore store() {
    ScopedPreferenceStore store = new ScopedPreferenceStore(InstanceScope.INSTANCE, NODE);
    store.setDefault(QWEN, true);
    store.setDefault(GEMINI, true);
    store.setDefault(MAX_CLIENTS, DEFAULT_MAX_CLIENTS);
    store.setDefault(ChatSettings.MODE, ChatSettings.defaultMode().key());
    store.setDefault(ChatSettings.AGENT, ChatSettings.DEFAULT_AGENT);
    store.setDefault(ChatSettings.QWEN_COMMAND, ChatSettings.DEFAULT_QWEN_COMMAND);
    return store;
  }
}
