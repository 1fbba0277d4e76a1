package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every string an editor event carries is bounded: a path is refused past PATH_MAX, text is cut.
 */
class EditorEventTest {
  private static final Path LONGEST = Path.of("/" + "d".repeat(EditorEvent.MAX_PATH_BYTES - 1));
  private static final Path TOO_LONG = Path.of("/" + "d".repeat(EditorEvent.MAX_PATH_BYTES));

  /** Two bytes a character in UTF-8: short in characters, too long in bytes. */
  private static final Path TOO_LONG_IN_BYTES =
      Path.of("/" + "é".repeat(EditorEvent.MAX_PATH_BYTES / 2));

  @Test
  void aPathLongerThanPathMaxIsRefusedInEveryEventThatNamesOne() {
    List<Runnable> events =
        List.of(
            () -> new EditorEvent.FileFocused(TOO_LONG),
            () -> new EditorEvent.FileClosed(TOO_LONG),
            () -> new EditorEvent.FileDeleted(TOO_LONG_IN_BYTES),
            () -> new EditorEvent.FileRenamed(LONGEST, TOO_LONG),
            () -> new EditorEvent.FileRenamed(TOO_LONG, LONGEST),
            () -> new EditorEvent.CursorMoved(TOO_LONG, 1, 1),
            () -> new EditorEvent.SelectionChanged(TOO_LONG, "x"),
            () -> new EditorEvent.DiagnosticsChanged(TOO_LONG, List.of()),
            () -> new EditorEvent.DirtyChanged(TOO_LONG, true));

    for (Runnable event : events) {
      assertThatThrownBy(event::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith(
              "is longer than " + EditorEvent.MAX_PATH_BYTES + " bytes (PATH_MAX)")
          .hasMessageNotContaining("ddd");
    }
    assertThat(new EditorEvent.FileFocused(LONGEST).path()).isEqualTo(LONGEST);
  }

  @Test
  void aSelectionIsCutAsTheClisCutIt() {
    String huge = "a".repeat(4 * 1024 * 1024);

    String kept = new EditorEvent.SelectionChanged(Path.of("/ws/a"), huge).text();

    assertThat(kept)
        .hasSize(IdeContext.MAX_SELECTED_CHARS + IdeContext.TRUNCATION_MARK.length())
        .endsWith(IdeContext.TRUNCATION_MARK);
    String emoji = "a".repeat(IdeContext.MAX_SELECTED_CHARS - 1) + "\uD83D\uDE00";
    assertThat(new EditorEvent.SelectionChanged(Path.of("/ws/a"), emoji).text())
        .as("a surrogate pair is not split")
        .isEqualTo("a".repeat(IdeContext.MAX_SELECTED_CHARS - 1) + IdeContext.TRUNCATION_MARK);
    String exact = "b".repeat(IdeContext.MAX_SELECTED_CHARS);
    assertThat(new EditorEvent.SelectionChanged(Path.of("/ws/a"), exact).text()).isSameAs(exact);
  }

  @Test
  void aDiagnosticsMessageAndSourceAreCutWithAnEllipsis() {
    Diagnostic d =
        new Diagnostic(
            TextRange.at(1, 1),
            Diagnostic.Severity.ERROR,
            "m".repeat(3 * 1024 * 1024),
            "s".repeat(3 * 1024 * 1024));

    assertThat(d.message()).hasSize(Diagnostic.MAX_MESSAGE_CHARS + 1).endsWith("m…");
    assertThat(d.source()).hasSize(Diagnostic.MAX_SOURCE_CHARS + 1).endsWith("s…");
    Diagnostic small =
        new Diagnostic(TextRange.at(1, 1), Diagnostic.Severity.ERROR, "broken", "javac");
    assertThat(small.message()).isEqualTo("broken");
    assertThat(small.source()).isEqualTo("javac");
  }

  @Test
  void anUnsavedTextPastItsBoundIsRefusedWholeNotCutAndNeverShown() {
    Path file = Path.of("/ws/a");
    String longest = "x".repeat(EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS);

    assertThat(new EditorEvent.DirtyChanged(file, true, longest).text()).isSameAs(longest);
    assertThatThrownBy(() -> new EditorEvent.DirtyChanged(file, true, longest + "y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "text is longer than " + EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS + " characters");
    assertThatThrownBy(() -> new EditorEvent.DirtyChanged(file, false, "saved"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("text goes only with dirty: true");
    assertThat(new EditorEvent.DirtyChanged(file, true, "secret draft").toString())
        .isEqualTo("DirtyChanged[path=/ws/a, dirty=true, text=<12 characters>]");
  }
}
