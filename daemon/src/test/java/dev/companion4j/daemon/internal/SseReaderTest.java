package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseReaderTest {
  private final List<String> seen = new ArrayList<>();

  private void read(String stream, int maxLine) throws IOException {
    new SseReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)), maxLine, () -> {})
        .run(
            new SseReader.Handler() {
              @Override
              public void onFrame(String id, String event, String data) {
                seen.add("frame id=" + id + " event=" + event + " data=" + data);
              }

              @Override
              public void onRetry(long millis) {
                seen.add("retry " + millis);
              }

              @Override
              public void onComment(String text) {
                seen.add("comment " + text);
              }
            });
  }

  @Test
  void readsTheDaemonsFraming() throws IOException {
    read("retry: 3000\n\n: heartbeat\n\nid: 7\nevent: session_update\ndata: {\"a\":1}\n\n", 1024);
    assertThat(seen)
        .containsExactly(
            "retry 3000", "comment heartbeat", "frame id=7 event=session_update data={\"a\":1}");
  }

  @Test
  void acceptsCrLfAndCrLineEndsAndJoinsDataLines() throws IOException {
    read("data: one\r\ndata:two\r\rdata: three\r\n\r\n", 1024);
    assertThat(seen).containsExactly("frame id=null event=message data=one\ntwo", "frame id=null event=message data=three");
  }

  @Test
  void ignoresFramesWithoutDataAndBadRetryValues() throws IOException {
    read("event: x\n\nretry: soon\n\nid: 1\0\ndata: d\n\n", 1024);
    assertThat(seen).containsExactly("frame id=null event=message data=d");
  }

  @Test
  void dropsAnUnfinishedFrameAtTheEnd() throws IOException {
    read("data: complete\n\ndata: cut off", 1024);
    assertThat(seen).containsExactly("frame id=null event=message data=complete");
  }

  @Test
  void refusesAnEndlessLine() {
    assertThatThrownBy(() -> read("data: " + "x".repeat(5000), 1024))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 1024");
  }

  @Test
  void refusesAnEndlessEventOfShortLines() {
    assertThatThrownBy(() -> read("data: x\n".repeat(1000), 1024))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 1024");
    assertThat(seen).isEmpty();
  }

  @Test
  void boundsEachEventNotTheStream() throws IOException {
    read("data: 0123456789\ndata: 0123456789\n\n".repeat(100), 64);
    assertThat(seen).hasSize(100).allMatch(f -> f.endsWith("data=0123456789\n0123456789"));
  }
}
