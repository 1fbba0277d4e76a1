package dev.companion4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event streams and JSON lines read as they arrive, within their caps. */
class SseDecoderTest {
  private final List<String> seen = new ArrayList<>();

  private SseDecoder decoder(int max) {
    return new SseDecoder(
        max,
        new SseDecoder.Listener() {
          @Override
          public void event(SseEvent event) {
            seen.add("event id=" + event.id() + " name=" + event.name() + " data=" + event.data());
          }

          @Override
          public void tooLarge() {
            seen.add("too large");
          }

          @Override
          public void retry(long millis) {
            seen.add("retry " + millis);
          }

          @Override
          public void comment(String text) {
            seen.add("comment " + text);
          }
        });
  }

  private void read(String stream, int max) throws IOException {
    decoder(max).read(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)));
  }

  /** Feeds {@code text} one byte at a time, so no line end falls where a whole buffer would. */
  private void trickle(String text, int max) {
    SseDecoder decoder = decoder(max);
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      decoder.feed(ByteBuffer.wrap(new byte[] {b}));
    }
    decoder.finish();
  }

  @Test
  void readsTheDaemonsFraming() throws IOException {
    read("retry: 3000\n\n: heartbeat\n\nid: 7\nevent: session_update\ndata: {\"a\":1}\n\n", 1024);

    assertThat(seen)
        .containsExactly(
            "retry 3000", "comment heartbeat", "event id=7 name=session_update data={\"a\":1}");
  }

  @Test
  void anyLineEndEndsALineWhereverTheBytesAreSplitAndDataLinesJoin() {
    trickle(
        ": connected\n\nevent: message\ndata: {\"a\":\"ü\"}\n\r\ndata:two\r\ndata: lines\r\rid: 7\n"
            + "event: ping\ndata: named\n\ndata: unterminated",
        1024);

    assertThat(seen)
        .containsExactly(
            "comment connected",
            "event id=null name=message data={\"a\":\"ü\"}",
            "event id=null name=message data=two\nlines",
            "event id=7 name=ping data=named");
  }

  @Test
  void ignoresEventsWithoutDataBadRetryValuesAndIdsWithNul() throws IOException {
    read(
        "event: x\n\nretry: soon\n\nretry: 99999999999\n\nid: 1\0\ndata: d\n\nid: 2\ndata: e\n\ndata: f\n\n",
        1024);

    assertThat(seen)
        .containsExactly(
            "event id=null name=message data=d",
            "event id=2 name=message data=e",
            "event id=null name=message data=f");
  }

  @Test
  void anEndlessLineIsDroppedOnceAndTheNextEventArrives() throws IOException {
    read("data: " + "x".repeat(5000) + "\ndata: more\n\ndata: ok\n\n", 1024);

    assertThat(seen).containsExactly("too large", "event id=null name=message data=ok");
  }

  @Test
  void anEndlessEventOfShortLinesIsDroppedOnceAndTheNextEventArrives() throws IOException {
    read("data: x\n".repeat(1000) + "\ndata: ok\n\n", 1024);

    assertThat(seen).containsExactly("too large", "event id=null name=message data=ok");
  }

  @Test
  void everyFieldOfAnEventCountsAgainstTheCapInBytes() throws IOException {
    // 16 bytes a line, 8 characters; names and ids count as data does.
    read(
        "data: üüüüü\ndata: üüüüü\n\nevent: aaaaaaaaaa\nid: bbbbbbbbbbbbbb\ndata: c\n\ndata: fits\n\n",
        24);

    assertThat(seen)
        .containsExactly("too large", "too large", "event id=null name=message data=fits");
  }

  @Test
  void boundsEachEventNotTheStream() throws IOException {
    read("data: 0123456789\ndata: 0123456789\n\n".repeat(100), 64);

    assertThat(seen).hasSize(100).allMatch(f -> f.endsWith("data=0123456789\n0123456789"));
  }

  @Test
  void refusesANonPositiveCap() {
    assertThatThrownBy(() -> decoder(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
  }

  @Test
  void jsonLinesEndAtLineFeedsOnlyAndDropACarriageReturnBeforeOne() {
    LineSplitter splitter =
        new LineSplitter(
            8,
            false,
            new LineSplitter.Lines() {
              @Override
              public void line(String line) {
                seen.add(line);
              }

              @Override
              public void tooLong() {
                seen.add("<too long>");
              }
            });

    byte[] bytes = "{\"a\":1}\r\n{\"b\"\r:2}\n0123456789abc\nlast".getBytes(StandardCharsets.UTF_8);
    splitter.feed(bytes, 0, 5);
    splitter.feed(bytes, 5, bytes.length - 5);
    splitter.finish();

    assertThat(seen).containsExactly("{\"a\":1}", "{\"b\"\r:2}", "<too long>", "last");
  }
}
