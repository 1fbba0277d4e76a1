package dev.companion4j.engine.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class EventIdStrippingWriterTest {
  @Test
  void dropsIdLinesEvenWhenSplitAcrossWrites() throws Exception {
    StringWriter out = new StringWriter();
    NoEventIdResponse.EventIdStrippingWriter writer =
        new NoEventIdResponse.EventIdStrippingWriter(out);

    writer.write("i");
    writer.write("d: 123\nevent: message\ndata: {\"id\":1}\n\n");
    writer.write("idle: kept\nid:");
    writer.write("9\ndata: x\n\n");
    writer.flush();

    assertThat(out.toString())
        .isEqualTo("event: message\ndata: {\"id\":1}\n\nidle: kept\ndata: x\n\n");
  }
}
