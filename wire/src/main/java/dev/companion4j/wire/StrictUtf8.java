package dev.companion4j.wire;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * UTF-8 that refuses what is not: a malformed byte is an error, never a replacement character that
 * would let a changed text pass for the one that was sent. Needs no JSON library, so a hook can use
 * it without loading one.
 */
public final class StrictUtf8 {
  private StrictUtf8() {}

  /**
   * The text {@code bytes} encode.
   *
   * @throws CharacterCodingException when they are not UTF-8
   */
  public static String decode(byte[] bytes) throws CharacterCodingException {
    return decoder().decode(ByteBuffer.wrap(bytes)).toString();
  }

  /**
   * A reader of {@code in} whose reads throw a {@link CharacterCodingException} on bytes that are
   * not UTF-8.
   */
  public static Reader reader(InputStream in) {
    return new InputStreamReader(in, decoder());
  }

  private static CharsetDecoder decoder() {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }
}
