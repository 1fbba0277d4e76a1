package dev.companion4j.daemon.internal;

import dev.companion4j.wire.SseDecoder;
import dev.companion4j.wire.SseEvent;
import java.io.IOException;
import java.io.InputStream;

/** Reads one connection's body into events, within the size cap of one event. */
final class FrameReader {
  /** Where the frames go. */
  interface Sink {
    /** Takes one event; true when the session ended, so nothing after it is delivered. */
    boolean event(SseEvent event);

    /** The daemon's {@code retry:} value. */
    void retry(long millis);
  }

  /** An event longer than the cap: the stream ends, since the session would miss it. */
  static final class EventTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    EventTooLargeException(int maxEventBytes) {
      super("event stream event longer than " + maxEventBytes + " bytes");
    }
  }

  private FrameReader() {}

  /**
   * Reads frames until the stream ends; true when the session ended.
   *
   * @param onBytes told of every read that brought bytes
   * @throws EventTooLargeException when an event is longer than {@code maxEventBytes}
   */
  static boolean read(InputStream body, int maxEventBytes, Runnable onBytes, Sink sink)
      throws IOException {
    boolean[] terminal = {false};
    boolean[] tooLarge = {false};
    SseDecoder decoder =
        new SseDecoder(
            maxEventBytes,
            new SseDecoder.Listener() {
              @Override
              public void event(SseEvent event) {
                // Nothing after a dropped event is delivered: the session would miss one.
                if (!terminal[0] && !tooLarge[0]) {
                  terminal[0] = sink.event(event);
                }
              }

              @Override
              public void tooLarge() {
                tooLarge[0] = true;
              }

              @Override
              public void retry(long millis) {
                sink.retry(millis);
              }
            });
    byte[] buffer = new byte[8192];
    int n;
    while ((n = body.read(buffer)) >= 0) {
      onBytes.run();
      decoder.feed(buffer, 0, n);
      if (tooLarge[0]) {
        throw new EventTooLargeException(maxEventBytes);
      }
    }
    decoder.finish();
    return terminal[0];
  }
}
