package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** Something the user did in the editor that changes what the CLIs should know. */
public sealed interface EditorEvent {

  /** A file editor got the focus (or was opened). */
  record FileFocused(Path path) implements EditorEvent {
    public FileFocused {
      Objects.requireNonNull(path, "path");
    }
  }

  /** A file's editor was closed. */
  record FileClosed(Path path) implements EditorEvent {
    public FileClosed {
      Objects.requireNonNull(path, "path");
    }
  }

  /** A file was deleted from disk. */
  record FileDeleted(Path path) implements EditorEvent {
    public FileDeleted {
      Objects.requireNonNull(path, "path");
    }
  }

  /** A file was renamed or moved; its place in the list is kept. */
  record FileRenamed(Path from, Path to) implements EditorEvent {
    public FileRenamed {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
    }
  }

  /** The caret moved; line and character are 1-based. Focuses the file if it was not. */
  record CursorMoved(Path path, int line, int character) implements EditorEvent {
    public CursorMoved {
      Objects.requireNonNull(path, "path");
      if (line < 1 || character < 1) {
        throw new IllegalArgumentException(
            "line and character are 1-based, got " + line + ":" + character);
      }
    }
  }

  /**
   * The selection changed; an empty text means nothing is selected. Focuses the file.
   *
   * @param range where the selection is, or null when the editor does not say
   */
  record SelectionChanged(Path path, String text, TextRange range) implements EditorEvent {
    public SelectionChanged {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(text, "text");
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
      Objects.requireNonNull(path, "path");
      diagnostics = List.copyOf(diagnostics);
    }
  }

  /** A file's editor got changes not saved yet ({@code dirty}), or was saved or reverted. */
  record DirtyChanged(Path path, boolean dirty) implements EditorEvent {
    public DirtyChanged {
      Objects.requireNonNull(path, "path");
    }
  }

  /** The user granted or withdrew trust in the workspace. */
  record TrustChanged(boolean trusted) implements EditorEvent {}
}
