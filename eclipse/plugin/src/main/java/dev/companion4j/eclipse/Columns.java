package dev.companion4j.eclipse;

import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;

/**
 * Positions in a document as the CLIs count them: lines and characters 1-based, characters in
 * Unicode code points (Eclipse's offsets count UTF-16 units, two for a character outside the BMP).
 */
final class Columns {
  private Columns() {}

  /** The 1-based line and code-point column of a document offset. */
  static int[] position(IDocument document, int offset) throws BadLocationException {
    int line = document.getLineOfOffset(offset);
    int start = document.getLineOffset(line);
    String before = document.get(start, offset - start);
    return new int[] {line + 1, before.codePointCount(0, before.length()) + 1};
  }

  /**
   * The document offset of a 1-based line and code-point column; a column past the line's end lands
   * at its end.
   */
  static int offset(IDocument document, int line, int character) throws BadLocationException {
    int start = document.getLineOffset(line - 1);
    String delimiter = document.getLineDelimiter(line - 1);
    int length = document.getLineLength(line - 1) - (delimiter == null ? 0 : delimiter.length());
    String text = document.get(start, length);
    int points = text.codePointCount(0, text.length());
    return start + text.offsetByCodePoints(0, Math.min(Math.max(character - 1, 0), points));
  }
}
