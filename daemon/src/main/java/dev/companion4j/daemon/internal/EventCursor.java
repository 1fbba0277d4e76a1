package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a session's stream stands: the last delivered event id, the daemon's cursor to fall back
 * on, and the bus epoch; what a reconnect asks the daemon to replay from.
 */
final class EventCursor {
  private volatile long lastEventId;
  private volatile long fallbackCursor = -1;

  // Read and written on the reading thread only.
  private String epoch;

  void startAfter(long afterEventId) {
    lastEventId = afterEventId;
  }

  /** Kept only while no event arrived: a delivered id is the better place to resume. */
  void noteDaemonCursor(long eventId) {
    if (fallbackCursor < 0) {
      fallbackCursor = eventId;
    }
  }

  void noteEpoch(String epoch) {
    this.epoch = epoch;
  }

  long lastEventId() {
    return lastEventId;
  }

  /** Advances past {@code event}; false when it was delivered before (an overlapping replay). */
  boolean advance(DaemonEvent event) {
    long id = event.meta().id();
    if (id > 0) {
      if (id <= lastEventId) {
        return false;
      }
      lastEventId = id;
    }
    if (event instanceof ResyncRequired) {
      // What follows is the daemon's replay from its earliest retained id (or a new epoch's ids).
      lastEventId = 0;
    }
    return true;
  }

  /** The headers that resume the stream where it stands. */
  Map<String, String> resumeHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    long cursor = lastEventId >= 0 ? lastEventId : fallbackCursor;
    if (cursor >= 0) {
      headers.put("Last-Event-ID", Long.toString(cursor));
      if (epoch != null) {
        headers.put("X-Qwen-Event-Epoch", epoch);
      }
    }
    return headers;
  }
}
