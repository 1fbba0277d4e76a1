package dev.companion4j.engine;

import java.nio.file.Path;

/**
 * One answer to a {@link CodeQuery}: a place in code, and what is there where the query names
 * something (a symbol, a caller, a type).
 *
 * @param name the symbol's name (qualified where the editor gives it), or null for a plain place
 *     such as a reference
 * @param kind what the symbol is in the editor's words ({@code class}, {@code method}, …), or null
 * @param path the file, absolute; null when it has no source the editor can show (a library class)
 * @param line 1-based, or 0 without a path
 * @param character 1-based, in code points, or 0 without a path
 * @param lineText that line's text without its line end, so that the reader needs no second read;
 *     empty without a path
 * @param declaration whether this place declares the symbol (references mark their declaration)
 */
public record CodeResult(
    String name,
    String kind,
    Path path,
    int line,
    int character,
    String lineText,
    boolean declaration) {
  public CodeResult {
    if (path == null ? line != 0 || character != 0 : line < 1 || character < 1) {
      throw new IllegalArgumentException(
          "a place has a path and a 1-based position, or neither; got "
              + path
              + " at "
              + line
              + ":"
              + character);
    }
    if (path == null && name == null) {
      throw new IllegalArgumentException("a result names a symbol or a place");
    }
    lineText = lineText == null ? "" : lineText;
  }

  /** A place in a file, such as a reference; {@code declaration} marks the declaring one. */
  public static CodeResult place(Path path, int line, int character, String lineText) {
    return new CodeResult(null, null, path, line, character, lineText, false);
  }
}
