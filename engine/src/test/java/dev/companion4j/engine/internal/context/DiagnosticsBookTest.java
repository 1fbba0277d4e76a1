package dev.companion4j.engine.internal.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.Diagnostic.Severity;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.TextRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DiagnosticsBookTest {
  private final List<FileDiagnostics> heard = new ArrayList<>();
  private final DiagnosticsBook book = new DiagnosticsBook(heard::add);

  private static Path p(String name) {
    return Path.of("/ws", name);
  }

  private static Diagnostic at(int line, Severity severity, String message) {
    return new Diagnostic(TextRange.at(line, 1), severity, message, null);
  }

  @Test
  void keepsTheMostSevereFirstCapsTheListAndCountsWhatItLeftOut() {
    List<Diagnostic> many = new ArrayList<>();
    IntStream.rangeClosed(1, FileDiagnostics.MAX_KEPT + 10)
        .forEach(i -> many.add(at(i, Severity.HINT, "hint " + i)));
    many.add(at(900, Severity.ERROR, "x".repeat(Diagnostic.MAX_MESSAGE_CHARS + 5)));
    many.add(at(3, Severity.WARNING, "warn"));

    book.apply(new EditorEvent.DiagnosticsChanged(p("a"), many));

    FileDiagnostics a = book.of(p("a")).orElseThrow();
    assertThat(a.total()).isEqualTo(FileDiagnostics.MAX_KEPT + 12);
    assertThat(a.diagnostics()).hasSize(FileDiagnostics.MAX_KEPT);
    assertThat(a.diagnostics().get(0).severity()).isEqualTo(Severity.ERROR);
    assertThat(a.diagnostics().get(0).message())
        .hasSize(Diagnostic.MAX_MESSAGE_CHARS + 1)
        .endsWith("…");
    assertThat(a.diagnostics().get(1).message()).isEqualTo("warn");
    assertThat(a.diagnostics().get(2).range().startLine()).as("then by position").isEqualTo(1);
    assertThat(book.reported()).isTrue();
    assertThat(heard).containsExactly(a);
  }

  @Test
  void aNewListReplacesTheOldAnEmptyOneClearsAndTheSameListIsNoNews() {
    book.apply(new EditorEvent.DiagnosticsChanged(p("a"), List.of(at(1, Severity.ERROR, "e"))));
    book.apply(new EditorEvent.DiagnosticsChanged(p("a"), List.of(at(1, Severity.ERROR, "e"))));
    book.apply(new EditorEvent.DiagnosticsChanged(p("a"), List.of(at(2, Severity.WARNING, "w"))));
    assertThat(book.of(p("a")).orElseThrow().diagnostics())
        .extracting(Diagnostic::message)
        .containsExactly("w");

    book.apply(new EditorEvent.DiagnosticsChanged(p("a"), List.of()));
    assertThat(book.snapshot()).isEmpty();
    assertThat(heard).hasSize(3);
    book.apply(new EditorEvent.DiagnosticsChanged(p("clean"), List.of()));
    assertThat(heard).as("a clean file that was clean is no change").hasSize(3);
    assertThat(book.reported()).isTrue();
  }

  @Test
  void theFirstReportIsNewsEvenWhenItsFileIsClean() {
    assertThat(book.reported()).isFalse();
    book.apply(new EditorEvent.DiagnosticsChanged(p("clean"), List.of()));

    assertThat(book.reported()).isTrue();
    assertThat(heard)
        .as("listeners learn that the editor reports diagnostics")
        .containsExactly(FileDiagnostics.none("/ws/clean"));
    assertThat(book.snapshot()).isEmpty();
  }

  @Test
  void renamesMoveTheListAndClosingOrDeletingAFolderClearsItsFiles() {
    book.apply(new EditorEvent.DiagnosticsChanged(p("src/a"), List.of(at(1, Severity.ERROR, "e"))));
    book.apply(new EditorEvent.DiagnosticsChanged(p("src/b"), List.of(at(1, Severity.ERROR, "e"))));
    book.apply(new EditorEvent.DiagnosticsChanged(p("c"), List.of(at(1, Severity.ERROR, "e"))));

    book.apply(new EditorEvent.FileRenamed(p("src"), p("lib")));
    assertThat(book.snapshot()).containsOnlyKeys(p("lib/a"), p("lib/b"), p("c"));

    book.apply(new EditorEvent.FileDeleted(p("lib")));
    book.apply(new EditorEvent.FileClosed(p("c")));
    assertThat(book.snapshot()).isEmpty();
    assertThat(heard)
        .filteredOn(d -> d.total() == 0)
        .extracting(FileDiagnostics::path)
        .contains("/ws/src/a", "/ws/src/b", "/ws/lib/a", "/ws/lib/b", "/ws/c");
  }

  @Test
  void allTheTextKeptIsBoundedAndTheLongestUnchangedFilesGoFirst() {
    List<Diagnostic> full =
        IntStream.rangeClosed(1, FileDiagnostics.MAX_KEPT)
            .mapToObj(i -> at(i, Severity.ERROR, "m".repeat(Diagnostic.MAX_MESSAGE_CHARS)))
            .toList();
    long perFile = (long) FileDiagnostics.MAX_KEPT * Diagnostic.MAX_MESSAGE_CHARS;
    int files = (int) (DiagnosticsBook.MAX_CHARS / perFile) + 5;

    for (int i = 0; i < files; i++) {
      book.apply(new EditorEvent.DiagnosticsChanged(p("f" + i), full));
    }

    assertThat(
            book.snapshot().values().stream()
                .mapToLong(f -> f.diagnostics().size() * (long) Diagnostic.MAX_MESSAGE_CHARS)
                .sum())
        .isLessThanOrEqualTo(DiagnosticsBook.MAX_CHARS);
    assertThat(book.snapshot()).doesNotContainKey(p("f0")).containsKey(p("f" + (files - 1)));
    assertThat(heard)
        .filteredOn(d -> d.total() == 0)
        .extracting(FileDiagnostics::path)
        .contains("/ws/f0");
  }
}
