package dev.companion4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StrictUtf8Test {
  private static final byte[] MALFORMED = {'a', (byte) 0xC3, 'b'};

  @Test
  void decodesUtf8() throws Exception {
    byte[] text = "grüße ✓".getBytes(StandardCharsets.UTF_8);
    assertThat(StrictUtf8.decode(text)).isEqualTo("grüße ✓");
    StringWriter read = new StringWriter();
    try (Reader r = StrictUtf8.reader(new ByteArrayInputStream(text))) {
      r.transferTo(read);
    }
    assertThat(read).hasToString("grüße ✓");
  }

  @Test
  void refusesBytesThatAreNotUtf8RatherThanReplacingThem() {
    assertThatThrownBy(() -> StrictUtf8.decode(MALFORMED))
        .isInstanceOf(CharacterCodingException.class);
    assertThatThrownBy(
            () -> {
              try (Reader r = StrictUtf8.reader(new ByteArrayInputStream(MALFORMED))) {
                r.transferTo(new StringWriter());
              }
            })
        .isInstanceOf(CharacterCodingException.class);
  }
}
