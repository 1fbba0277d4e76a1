package dev.companion4j.netbeans;

import dev.companion4j.engine.discovery.DiscoveryTarget;
import java.util.EnumSet;
import java.util.Set;
import java.util.prefs.Preferences;
import org.openide.util.NbPreferences;

/** The user's choices from Tools > Options, kept in the IDE's preferences. */
final class CompanionSettings {
  private static final String QWEN = "discovery.qwenCode";
  private static final String GEMINI = "discovery.geminiCli";

  private CompanionSettings() {}

  static Set<DiscoveryTarget> targets() {
    Set<DiscoveryTarget> targets = EnumSet.noneOf(DiscoveryTarget.class);
    if (prefs().getBoolean(QWEN, true)) {
      targets.add(DiscoveryTarget.QWEN_CODE);
    }
    if (prefs().getBoolean(GEMINI, true)) {
      targets.add(DiscoveryTarget.GEMINI_CLI);
    }
    return targets;
  }

  static void setTargets(Set<DiscoveryTarget> targets) {
    prefs().putBoolean(QWEN, targets.contains(DiscoveryTarget.QWEN_CODE));
    prefs().putBoolean(GEMINI, targets.contains(DiscoveryTarget.GEMINI_CLI));
  }

  private static Preferences prefs() {
    return NbPreferences.forModule(CompanionSettings.class);
  }
}
