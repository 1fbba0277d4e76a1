package dev.companion4j.wire;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Decodes a {@code text/event-stream} body as the SSE specification describes it: lines end in CR,
 * LF or CRLF, {@code :} starts a comment, a blank line dispatches the event, an event without data
 * is not dispatched, nor is one the stream's end cut off. Bytes are pushed in as they arrive
 * ({@link #feed}), or pulled from a stream ({@link #read}).
 *
 * <p><b>An event over the cap</b> (its lines up to the blank line that ends it, line ends not
 * counted; so also any single line) <b>is dropped whole and reported once</b> through {@link
 * Listener#tooLarge()}; decoding goes on with the next event. Dropping keeps memory at the cap
 * whatever the peer sends, and the blank line is where the stream is whole again. Whether a gap is
 * acceptable only the consumer knows: the bridge reports the lost message and relays the rest, the
 * daemon client ends the stream, since a session missing one event shows a wrong conversation and
 * the daemon would replay the same event on a reconnect.
 *
 * <p>Not thread-safe: one stream, one decoder. The listener runs on the thread that feeds it.
 */
public final class SseDecoder {
  /** Receives what the stream carries, on the thread that feeds the decoder. */
  public interface Listener {
    /** A listener for the events and the dropped ones only. */
    static Listener of(Consumer<SseEvent> events, Runnable tooLarge) {
      return new Listener() {
        @Override
        public void event(SseEvent event) {
          events.accept(event);
        }

        @Override
        public void tooLarge() {
          tooLarge.run();
        }
      };
    }

    /** A dispatched event. */
    void event(SseEvent event);

    /** An event longer than the cap was dropped; called once per such event. */
    void tooLarge();

    /** The server's reconnection delay, from a {@code retry:} line of digits only. */
    default void retry(long millis) {}

    /** A comment line such as a heartbeat, without its colon and surrounding blanks. */
    default void comment(String text) {}
  }

  private final int maxEventBytes;
  private final Listener listener;
  private final LineSplitter splitter;
  private final StringBuilder data = new StringBuilder();
  private int eventBytes;
  private boolean hasData;
  private boolean dropping;
  private String id;
  private String name;

  /**
   * @param maxEventBytes the most bytes one event's lines may take together, line ends not counted
   * @throws IllegalArgumentException if {@code maxEventBytes} is not positive
   */
  public SseDecoder(int maxEventBytes, Listener listener) {
    if (maxEventBytes < 1) {
      throw new IllegalArgumentException("maxEventBytes must be positive: " + maxEventBytes);
    }
    this.maxEventBytes = maxEventBytes;
    this.listener = listener;
    this.splitter =
        new LineSplitter(maxEventBytes, true, LineSplitter.Lines.of(this::onLine, this::drop));
  }

  public void feed(ByteBuffer bytes) {
    splitter.feed(bytes);
  }

  public void feed(byte[] bytes, int offset, int count) {
    splitter.feed(bytes, offset, count);
  }

  /** The end of the stream; an event not ended by a blank line is not dispatched. */
  public void finish() {
    splitter.finish();
  }

  /**
   * Reads {@code in} to its end, then {@link #finish()}es. It reads only as fast as the listener
   * returns, so a slow consumer leaves the bytes in the socket, not in memory.
   */
  public void read(InputStream in) throws IOException {
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      feed(buffer, 0, n);
    }
    finish();
  }

  private void onLine(String line) {
    if (line.isEmpty()) {
      dispatch();
      return;
    }
    if (line.charAt(0) == ':') {
      listener.comment(line.substring(1).strip());
      return;
    }
    if (dropping) {
      return;
    }
    eventBytes += utf8Length(line);
    if (eventBytes > maxEventBytes) {
      drop();
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value =
        colon < 0 ? "" : line.substring(colon + (line.startsWith(" ", colon + 1) ? 2 : 1));
    switch (field) {
      case "data" -> {
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
      }
      case "event" -> name = value;
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          id = value;
        }
      }
      case "retry" -> {
        if (!value.isEmpty()
            && value.length() < 10
            && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
          listener.retry(Long.parseLong(value));
        }
      }
      default -> {
        // The specification ignores other fields.
      }
    }
  }

  /** The line's length as it came, in UTF-8 (a malformed byte, decoded as U+FFFD, counts 3). */
  private static int utf8Length(String line) {
    int bytes = line.length();
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c >= 0x800 && !Character.isSurrogate(c)) {
        bytes += 2;
      } else if (c >= 0x80) {
        bytes += 1;
      }
    }
    return bytes;
  }

  private void drop() {
    if (!dropping) {
      dropping = true;
      listener.tooLarge();
    }
    reset();
  }

  private void dispatch() {
    if (hasData && !dropping) {
      listener.event(
          new SseEvent(
              id, name == null || name.isEmpty() ? SseEvent.MESSAGE : name, data.toString()));
    }
    reset();
    dropping = false;
  }

  private void reset() {
    data.setLength(0);
    eventBytes = 0;
    hasData = false;
    id = null;
    name = null;
  }
}
