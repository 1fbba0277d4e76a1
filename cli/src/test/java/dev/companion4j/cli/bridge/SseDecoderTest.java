package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event streams and JSON lines read byte by byte, as they arrive, within their caps. */
class SseDecoderTest {
  private final List<String> got = new ArrayList<>();

  private SseDecoder decoder(int max) {
    return new SseDecoder(max, new SseDecoder.Events() {
      @Override
      public void data(String data) {
        got.add(data);
      }

      @Override
      public void tooLong() {
        got.add("<too long>");
      }
    });
  }

  /** Feeds {@code text} one byte at a time, so no line end falls where a whole buffer would. */
  private static void trickle(SseDecoder decoder, String text) {
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      decoder.feed(ByteBuffer.wrap(new byte[] {b}));
    }
  }

  @Test
  void messageEventsAreHandedOverWhateverTheLineEndsAndCommentsAndOtherEventsAreNot() {
    SseDecoder decoder = decoder(1024);

    trickle(decoder, ": connected\n\nevent: message\ndata: {\"a\":\"ü\"}\n\r\ndata:two\r\ndata: lines\r\rid: 7\n"
        + "event: ping\ndata: skipped\n\nretry: 10\ndata: last\n\n: heartbeat\n\ndata: unterminated");
    decoder.finish();

    assertThat(got).containsExactly("{\"a\":\"ü\"}", "two\nlines", "last");
  }

  @Test
  void anEventOverTheCapIsDroppedOnceAndTheNextOneArrives() {
    SseDecoder decoder = decoder(16);

    trickle(decoder, "data: " + "x".repeat(40) + "\ndata: more\n\ndata: 0123456789\ndata: 0123456789\n\ndata: ok\n\n");

    assertThat(got).containsExactly("<too long>", "<too long>", "ok");
  }

  @Test
  void jsonLinesEndAtLineFeedsOnlyAndDropACarriageReturnBeforeOne() {
    List<String> lines = new ArrayList<>();
    LineSplitter splitter = new LineSplitter(8, false, new LineSplitter.Lines() {
      @Override
      public void line(String line) {
        lines.add(line);
      }

      @Override
      public void tooLong() {
        lines.add("<too long>");
      }
    });

    byte[] bytes = "{\"a\":1}\r\n{\"b\"\r:2}\n0123456789abc\nlast".getBytes(StandardCharsets.UTF_8);
    splitter.feed(bytes, 0, 5);
    splitter.feed(bytes, 5, bytes.length - 5);
    splitter.finish();

    assertThat(lines).containsExactly("{\"a\":1}", "{\"b\"\r:2}", "<too long>", "last");
  }
}
