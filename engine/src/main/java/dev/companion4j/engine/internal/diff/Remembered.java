package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.DiffId;
import java.util.LinkedHashMap;
import java.util.Map;

/** How the books remember ended proposals, so that a late answer learns why it came too late. */
final class Remembered {
  private Remembered() {}

  /**
   * A map that keeps its newest {@code max} entries, forgetting the oldest first; unsynchronized.
   */
  static <V> Map<DiffId, V> newest(int max) {
    return new LinkedHashMap<>() {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<DiffId, V> eldest) {
        return size() > max;
      }
    };
  }
}
