package dev.companion4j.cli.bridge;

import java.nio.ByteBuffer;

/**
 * Reads a {@code text/event-stream} body as the SSE specification describes it and hands over the
 * data of each {@code message} event (named so, or not named). Comments (the companion's
 * heartbeats), {@code id:}, {@code retry:} and events of other names are ignored: the bridge never
 * resumes a stream, it ends when the stream does. A reader of named events ({@link NamedEvents},
 * the editor API's stream) gets every event with its name. One event may hold at most the cap; a
 * longer one is reported and dropped. Not thread-safe: one stream, one reader.
 */
public final class SseDecoder {
  /** Receives what the stream carries, on the thread that feeds the decoder. */
  interface Events {
    void data(String data);

    /** An event longer than the cap was dropped. */
    void tooLong();
  }

  /** Receives every event with its name ({@code message} when it has none), on the feeding thread. */
  public interface NamedEvents {
    void event(String name, String data);

    /** An event longer than the cap was dropped. */
    void tooLong();
  }

  private final int maxEventBytes;
  private final NamedEvents events;
  private final LineSplitter splitter;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private boolean dropping;
  private String name;

  SseDecoder(int maxEventBytes, Events events) {
    this(maxEventBytes, new NamedEvents() {
      @Override
      public void event(String name, String data) {
        if (name.equals("message")) {
          events.data(data);
        }
      }

      @Override
      public void tooLong() {
        events.tooLong();
      }
    });
  }

  public SseDecoder(int maxEventBytes, NamedEvents events) {
    this.maxEventBytes = maxEventBytes;
    this.events = events;
    this.splitter = new LineSplitter(maxEventBytes, true, new LineSplitter.Lines() {
      @Override
      public void line(String line) {
        onLine(line);
      }

      @Override
      public void tooLong() {
        drop();
      }
    });
  }

  public void feed(ByteBuffer bytes) {
    splitter.feed(bytes);
  }

  public void feed(byte[] bytes, int offset, int count) {
    splitter.feed(bytes, offset, count);
  }

  /** The end of the stream; an event not ended by a blank line is not dispatched, as the specification says. */
  public void finish() {
    splitter.finish();
  }

  private void onLine(String line) {
    if (line.isEmpty()) {
      dispatch();
      return;
    }
    if (line.charAt(0) == ':' || dropping) {
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + (line.startsWith(" ", colon + 1) ? 2 : 1));
    if (field.equals("data")) {
      if (data.length() + value.length() + 1 > maxEventBytes) {
        drop();
        return;
      }
      if (hasData) {
        data.append('\n');
      }
      data.append(value);
      hasData = true;
    } else if (field.equals("event")) {
      name = value;
    }
  }

  private void drop() {
    if (!dropping) {
      dropping = true;
      events.tooLong();
    }
    data.setLength(0);
    hasData = false;
  }

  private void dispatch() {
    if (hasData && !dropping) {
      events.event(name == null || name.isEmpty() ? "message" : name, data.toString());
    }
    data.setLength(0);
    hasData = false;
    dropping = false;
    name = null;
  }
}
