package dev.companion4j.engine;

import java.util.List;
import java.util.Objects;

/**
 * What the CLIs know about the editor: the payload of {@code ide/contextUpdate}.
 *
 * @param openFiles the most recently focused files on disk, newest first, at most {@link
 *     #MAX_OPEN_FILES}; only the first may carry a cursor and selection
 * @param isTrusted whether the user trusts the workspace
 */
public record IdeContext(List<OpenFile> openFiles, boolean isTrusted) {

  /** The CLIs keep no more files than this; sending more only costs bandwidth. */
  public static final int MAX_OPEN_FILES = 10;

  /** The CLIs cut a selection at this many characters. */
  public static final int MAX_SELECTED_CHARS = 16_384;

  /** Appended to a selection that was cut, as the CLIs do themselves. */
  public static final String TRUNCATION_MARK = "... [TRUNCATED]";

  public IdeContext {
    openFiles = List.copyOf(openFiles);
  }

  /** The focused file, if any. */
  public java.util.Optional<OpenFile> activeFile() {
    return openFiles.stream().filter(OpenFile::isActive).findFirst();
  }

  /**
   * A file in the context.
   *
   * @param path absolute path on disk
   * @param timestamp when it was last focused, in Unix milliseconds
   * @param isActive whether it is the focused file
   * @param cursor the caret, on the active file only
   * @param selectedText the selected text, on the active file only, or null
   */
  public record OpenFile(
      String path, long timestamp, boolean isActive, Cursor cursor, String selectedText) {
    public OpenFile {
      Objects.requireNonNull(path, "path");
    }
  }

  /** A caret position; both numbers are 1-based, as the specs require. */
  public record Cursor(int line, int character) {
    public Cursor {
      if (line < 1 || character < 1) {
        throw new IllegalArgumentException(
            "cursor line and character are 1-based, got " + line + ":" + character);
      }
    }
  }
}
