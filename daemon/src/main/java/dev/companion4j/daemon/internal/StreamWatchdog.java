package dev.companion4j.daemon.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open connection of a session's stream and its heartbeat bound: a connection silent for longer
 * than the timeout is closed, which the reading thread sees as a drop.
 */
final class StreamWatchdog {
  private static final Logger LOG = LoggerFactory.getLogger(StreamWatchdog.class);

  private final String sessionId;
  private final long timeoutMillis;
  private final EventStream.Clock clock;
  private volatile InputStream current;
  private volatile long lastBytesNanos;

  StreamWatchdog(String sessionId, long timeoutMillis, EventStream.Clock clock) {
    this.sessionId = sessionId;
    this.timeoutMillis = timeoutMillis;
    this.clock = clock;
  }

  void watch(InputStream body) {
    current = body;
    bytesArrived();
  }

  void bytesArrived() {
    lastBytesNanos = clock.nanoTime();
  }

  /** Run on the timer: closes a connection silent for too long. */
  void check() {
    InputStream stream = current;
    long silentMillis = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - lastBytesNanos);
    if (stream != null && silentMillis > timeoutMillis) {
      LOG.info(
          "event stream of session {} silent for {} ms; reconnecting", sessionId, silentMillis);
      drop();
    }
  }

  /** Closes the open connection, if any. */
  void drop() {
    InputStream stream = current;
    current = null;
    if (stream != null) {
      try {
        stream.close();
      } catch (IOException e) {
        LOG.debug("closing the event stream failed", e);
      }
    }
  }
}
