package dev.companion4j.daemon.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a {@code text/event-stream} body frame by frame, as the SSE specification describes it:
 * lines end in CR, LF or CRLF, {@code :} starts a comment, a blank line dispatches.
 *
 * <p>It reads only as fast as its handler returns, so a slow consumer leaves the bytes in the
 * socket instead of in memory. One event (its lines up to the blank line that ends it, so also any
 * single line) may take at most the cap; a longer one ends the stream with {@link
 * EventTooLargeException}, so an upstream that never ends an event cannot exhaust the heap.
 */
public final class SseReader {

  /** Receives what the stream says, on the reading thread. */
  public interface Handler {
    /** A dispatched event; {@code id} is {@code null} when the frame had no {@code id:} line. */
    void onFrame(String id, String event, String data);

    /** The server's reconnection delay from a {@code retry:} line. */
    void onRetry(long millis);

    /** A comment line such as the daemon's {@code : heartbeat}. */
    default void onComment(String text) {}
  }

  /** An event, or a line, longer than the cap. */
  public static final class EventTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    EventTooLargeException(int maxEventBytes) {
      super("event stream event longer than " + maxEventBytes + " bytes");
    }
  }

  private final InputStream in;
  private final int maxEventBytes;
  private final Runnable onBytes;
  private final byte[] readBuffer = new byte[8192];
  private int readPos;
  private int readLimit;
  private byte[] line = new byte[256];
  private int lineLength;
  private int eventBytes;
  private boolean skipLf;

  private String eventId;
  private String eventType;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;

  /**
   * @param maxEventBytes the most bytes one event's lines may take together, line ends not counted
   * @param onBytes called whenever bytes arrived, so a watchdog can tell a quiet stream from a
   *     dead one
   */
  public SseReader(InputStream in, int maxEventBytes, Runnable onBytes) {
    this.in = in;
    this.maxEventBytes = maxEventBytes;
    this.onBytes = onBytes;
  }

  /** Reads until the end of the stream. */
  public void run(Handler handler) throws IOException {
    String text;
    while ((text = readLine()) != null) {
      processLine(text, handler);
    }
  }

  private void processLine(String text, Handler handler) {
    if (text.isEmpty()) {
      dispatch(handler);
      return;
    }
    if (text.charAt(0) == ':') {
      handler.onComment(text.substring(1).trim());
      return;
    }
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    String value = colon < 0 ? "" : text.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (field) {
      case "data":
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
        break;
      case "event":
        eventType = value;
        break;
      case "id":
        if (value.indexOf('\0') < 0) {
          eventId = value;
        }
        break;
      case "retry":
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9') && value.length() < 10) {
          handler.onRetry(Long.parseLong(value));
        }
        break;
      default:
        break;
    }
  }

  private void dispatch(Handler handler) {
    if (hasData) {
      handler.onFrame(eventId, eventType == null ? "message" : eventType, data.toString());
    }
    eventId = null;
    eventType = null;
    data.setLength(0);
    hasData = false;
  }

  private String readLine() throws IOException {
    lineLength = 0;
    if (line.length > 65536) {
      line = new byte[256];
    }
    while (true) {
      if (readPos == readLimit) {
        int n = in.read(readBuffer);
        if (n < 0) {
          return null;
        }
        onBytes.run();
        readPos = 0;
        readLimit = n;
      }
      byte b = readBuffer[readPos++];
      if (skipLf) {
        skipLf = false;
        if (b == '\n') {
          continue;
        }
      }
      if (b == '\n' || b == '\r') {
        skipLf = b == '\r';
        eventBytes = lineLength == 0 ? 0 : eventBytes + lineLength;
        return new String(line, 0, lineLength, StandardCharsets.UTF_8);
      }
      if (eventBytes + lineLength >= maxEventBytes) {
        throw new EventTooLargeException(maxEventBytes);
      }
      if (lineLength == line.length) {
        line = Arrays.copyOf(line, Math.min(maxEventBytes, lineLength * 2));
      }
      line[lineLength++] = b;
    }
  }
}
