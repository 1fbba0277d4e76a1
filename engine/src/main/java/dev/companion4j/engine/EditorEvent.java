package dev.companion4j.engine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Something the user did in the editor that changes what the CLIs should know. Every string is
 * bounded: a path longer than {@link #MAX_PATH_BYTES} names no file and is refused; text is cut (a
 * selection here, a diagnostic's message and source in {@link Diagnostic}).
 */
public sealed interface EditorEvent {
  /** The longest path an event may name, in UTF-8 bytes: Linux's {@code PATH_MAX}. */
  int MAX_PATH_BYTES = 4096;

  /** A file editor got the focus (or was opened). */
  record FileFocused(Path path) implements EditorEvent {
    public FileFocused {
      requirePath(path, "path");
    }
  }

  /** A file's editor was closed. */
  record FileClosed(Path path) implements EditorEvent {
    public FileClosed {
      requirePath(path, "path");
    }
  }

  /** A file was deleted from disk. */
  record FileDeleted(Path path) implements EditorEvent {
    public FileDeleted {
      requirePath(path, "path");
    }
  }

  /** A file was renamed or moved; its place in the list is kept. */
  record FileRenamed(Path from, Path to) implements EditorEvent {
    public FileRenamed {
      requirePath(from, "from");
      requirePath(to, "to");
    }
  }

  /** The caret moved; line and character are 1-based. Focuses the file if it was not. */
  record CursorMoved(Path path, int line, int character) implements EditorEvent {
    public CursorMoved {
      requirePath(path, "path");
      if (line < 1 || character < 1) {
        throw new IllegalArgumentException(
            "line and character are 1-based, got " + line + ":" + character);
      }
    }
  }

  /**
   * The selection changed; an empty text means nothing is selected. Focuses the file.
   *
   * @param text what is selected, cut as the CLIs cut it: past {@link
   *     IdeContext#MAX_SELECTED_CHARS} characters, with {@link IdeContext#TRUNCATION_MARK} appended
   * @param range where the selection is, or null when the editor does not say
   */
  record SelectionChanged(Path path, String text, TextRange range) implements EditorEvent {
    public SelectionChanged {
      requirePath(path, "path");
      Objects.requireNonNull(text, "text");
      text = Texts.cut(text, IdeContext.MAX_SELECTED_CHARS, IdeContext.TRUNCATION_MARK);
    }

    /** A selection whose place the editor does not tell. */
    public SelectionChanged(Path path, String text) {
      this(path, text, null);
    }
  }

  /**
   * A file's diagnostics changed: {@code diagnostics} is its whole list now, replacing the one
   * before; an empty list clears it. The file need not be focused, nor saved.
   */
  record DiagnosticsChanged(Path path, List<Diagnostic> diagnostics) implements EditorEvent {
    public DiagnosticsChanged {
      requirePath(path, "path");
      diagnostics = List.copyOf(diagnostics);
    }
  }

  /**
   * A file's editor got changes not saved yet ({@code dirty}), or was saved or reverted.
   *
   * @param text the buffer's whole unsaved text, which the companion's own chat agent reads instead
   *     of the disk; null when the editor does not tell it, and always null when not dirty. At most
   *     {@link #MAX_UNSAVED_CHARS} characters: a longer one is refused, since a cut text would be a
   *     wrong file. Never in {@link #toString()}
   */
  record DirtyChanged(Path path, boolean dirty, String text) implements EditorEvent {
    /** The longest unsaved text one event may carry, in UTF-16 characters. */
    public static final int MAX_UNSAVED_CHARS = 1024 * 1024;

    public DirtyChanged {
      requirePath(path, "path");
      if (text != null && !dirty) {
        throw new IllegalArgumentException(
            "text goes only with dirty: true (a saved file is read from disk)");
      }
      if (text != null && text.length() > MAX_UNSAVED_CHARS) {
        throw new IllegalArgumentException(
            "text is longer than " + MAX_UNSAVED_CHARS + " characters");
      }
    }

    /** A change of unsaved state from an editor that does not tell the text. */
    public DirtyChanged(Path path, boolean dirty) {
      this(path, dirty, null);
    }

    /** The file's unsaved text is the user's, and stays out of logs. */
    @Override
    public String toString() {
      return "DirtyChanged[path="
          + path
          + ", dirty="
          + dirty
          + (text == null ? "" : ", text=<" + text.length() + " characters>")
          + "]";
    }
  }

  /** The user granted or withdrew trust in the workspace. */
  record TrustChanged(boolean trusted) implements EditorEvent {}

  /** Refuses a null path, or one no file can have; the message does not repeat it. */
  private static void requirePath(Path path, String name) {
    Objects.requireNonNull(path, name);
    if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
      throw new IllegalArgumentException(
          name + " is longer than " + MAX_PATH_BYTES + " bytes (PATH_MAX)");
    }
  }
}
