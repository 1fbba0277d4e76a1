package dev.companion4j.engine;

/**
 * A span of text in a file. Lines and characters are 1-based, as the cursor's; the end is the
 * position just after the last character, so an empty range has equal start and end.
 */
public record TextRange(int startLine, int startCharacter, int endLine, int endCharacter) {
  public TextRange {
    if (startLine < 1 || startCharacter < 1 || endLine < 1 || endCharacter < 1) {
      throw new IllegalArgumentException(
          "range positions are 1-based, got "
              + describe(startLine, startCharacter, endLine, endCharacter));
    }
    if (endLine < startLine || (endLine == startLine && endCharacter < startCharacter)) {
      throw new IllegalArgumentException(
          "a range must not end before it starts, got "
              + describe(startLine, startCharacter, endLine, endCharacter));
    }
  }

  /** The empty range at one position. */
  public static TextRange at(int line, int character) {
    return new TextRange(line, character, line, character);
  }

  private static String describe(int sl, int sc, int el, int ec) {
    return sl + ":" + sc + "-" + el + ":" + ec;
  }
}
