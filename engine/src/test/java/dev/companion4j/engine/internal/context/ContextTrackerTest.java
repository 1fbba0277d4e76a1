package dev.companion4j.engine.internal.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.IdeContext.OpenFile;
import dev.companion4j.engine.OpenEditor;
import dev.companion4j.engine.TextRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContextTrackerTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final ContextTracker tracker =
      new ContextTracker(clock::get, p -> !p.toString().contains("virtual"), true);

  private static Path p(String name) {
    return Path.of("/ws", name);
  }

  @Test
  void newestFirstWithCursorAndSelectionOnTheActiveFileOnly() {
    tracker.apply(new EditorEvent.CursorMoved(p("a"), 1, 2));
    tracker.apply(new EditorEvent.SelectionChanged(p("a"), "sel"));
    tracker.apply(new EditorEvent.CursorMoved(p("b"), 3, 4));

    IdeContext ctx = tracker.snapshot();

    assertThat(ctx.openFiles()).extracting(OpenFile::path).containsExactly("/ws/b", "/ws/a");
    OpenFile b = ctx.openFiles().get(0);
    assertThat(b.isActive()).isTrue();
    assertThat(b.cursor()).isEqualTo(new IdeContext.Cursor(3, 4));
    OpenFile a = ctx.openFiles().get(1);
    assertThat(a.isActive()).isFalse();
    assertThat(a.cursor()).isNull();
    assertThat(a.selectedText()).isNull();
  }

  @Test
  void timestampsStrictlyIncreaseWithinOneMillisecond() {
    tracker.apply(new EditorEvent.FileFocused(p("a")));
    tracker.apply(new EditorEvent.FileFocused(p("b")));
    tracker.apply(new EditorEvent.FileFocused(p("c")));

    assertThat(tracker.snapshot().openFiles())
        .extracting(OpenFile::timestamp)
        .containsExactly(1_002L, 1_001L, 1_000L);
  }

  @Test
  void keepsTheTenNewestAndBringsBackTheEleventhWhenOneCloses() {
    for (int i = 1; i <= 11; i++) {
      tracker.apply(new EditorEvent.FileFocused(p("f" + i)));
    }
    assertThat(tracker.snapshot().openFiles())
        .hasSize(10)
        .extracting(OpenFile::path)
        .doesNotContain("/ws/f1");

    tracker.apply(new EditorEvent.FileClosed(p("f5")));

    assertThat(tracker.snapshot().openFiles())
        .hasSize(10)
        .extracting(OpenFile::path)
        .contains("/ws/f1")
        .doesNotContain("/ws/f5");
  }

  @Test
  void cutsLongSelectionsLikeTheClis() {
    tracker.apply(new EditorEvent.SelectionChanged(p("a"), "x".repeat(20_000)));

    String sent = tracker.snapshot().openFiles().get(0).selectedText();

    assertThat(sent)
        .hasSize(IdeContext.MAX_SELECTED_CHARS + IdeContext.TRUNCATION_MARK.length())
        .endsWith("... [TRUNCATED]");
  }

  @Test
  void ignoresFilesThatAreNotOnDisk() {
    assertThat(tracker.apply(new EditorEvent.FileFocused(p("virtual-settings")))).isFalse();
    assertThat(tracker.snapshot().openFiles()).isEmpty();
  }

  @Test
  void renameKeepsThePlaceAndDeleteOfAFolderRemovesItsFiles() {
    tracker.apply(new EditorEvent.FileFocused(p("dir/x")));
    tracker.apply(new EditorEvent.CursorMoved(p("old"), 5, 1));

    tracker.apply(new EditorEvent.FileRenamed(p("old"), p("new")));
    assertThat(tracker.snapshot().openFiles().get(0).path()).isEqualTo("/ws/new");
    assertThat(tracker.snapshot().openFiles().get(0).cursor().line()).isEqualTo(5);

    tracker.apply(new EditorEvent.FileDeleted(p("dir")));
    assertThat(tracker.snapshot().openFiles())
        .extracting(OpenFile::path)
        .containsExactly("/ws/new");
  }

  @Test
  void reportsWhetherAnEventChangedAnything() {
    assertThat(tracker.apply(new EditorEvent.CursorMoved(p("a"), 1, 1))).isTrue();
    assertThat(tracker.apply(new EditorEvent.CursorMoved(p("a"), 1, 1))).isFalse();
    assertThat(tracker.apply(new EditorEvent.TrustChanged(false))).isTrue();
    assertThat(tracker.snapshot().isTrusted()).isFalse();
  }

  @Test
  void openEditorsCarryTheSelectionsPlaceAndWhichAreDirtyAcrossRenamesAndCloses() {
    tracker.apply(new EditorEvent.FileFocused(p("a")));
    tracker.apply(new EditorEvent.DirtyChanged(p("a"), true));
    tracker.apply(new EditorEvent.DirtyChanged(p("unfocused"), true));
    tracker.apply(new EditorEvent.SelectionChanged(p("b"), "xy", new TextRange(2, 1, 2, 3)));

    assertThat(tracker.editors())
        .extracting(OpenEditor::path, OpenEditor::active, OpenEditor::dirty)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("/ws/b", true, false),
            org.assertj.core.groups.Tuple.tuple("/ws/a", false, true),
            org.assertj.core.groups.Tuple.tuple("/ws/unfocused", false, true));
    assertThat(tracker.editors().get(0).selection()).isEqualTo(new TextRange(2, 1, 2, 3));
    assertThat(tracker.snapshot().openFiles()).as("the CLIs never hear of dirty state").hasSize(2);

    tracker.apply(new EditorEvent.FileRenamed(p("a"), p("c")));
    tracker.apply(new EditorEvent.FileClosed(p("unfocused")));
    tracker.apply(new EditorEvent.SelectionChanged(p("b"), ""));

    assertThat(tracker.editors())
        .extracting(OpenEditor::path, OpenEditor::dirty)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("/ws/b", false),
            org.assertj.core.groups.Tuple.tuple("/ws/c", true));
    assertThat(tracker.editors().get(0).selection()).isNull();
  }

  @Test
  void keepsTheNewestUnsavedTextWhileDirtyAcrossRenamesAndForgetsItOnSaveCloseDeleteOrSilence() {
    tracker.apply(new EditorEvent.DirtyChanged(p("a"), true, "draft 1"));
    tracker.apply(new EditorEvent.DirtyChanged(p("a"), true, "draft 2"));
    tracker.apply(new EditorEvent.DirtyChanged(p("dir/b"), true, "b draft"));
    tracker.apply(new EditorEvent.DirtyChanged(p("c"), true, "c draft"));
    tracker.apply(new EditorEvent.DirtyChanged(p("d"), true, "d draft"));
    assertThat(tracker.unsavedText(Path.of("/ws/x/../a"))).contains("draft 2");

    tracker.apply(new EditorEvent.FileRenamed(p("dir"), p("moved")));
    assertThat(tracker.unsavedText(p("dir/b"))).isEmpty();
    assertThat(tracker.unsavedText(p("moved/b"))).contains("b draft");

    tracker.apply(new EditorEvent.DirtyChanged(p("a"), false));
    tracker.apply(new EditorEvent.FileClosed(p("moved")));
    tracker.apply(new EditorEvent.FileDeleted(p("c")));
    tracker.apply(new EditorEvent.DirtyChanged(p("d"), true));

    assertThat(List.of(p("a"), p("moved/b"), p("c"), p("d")))
        .allSatisfy(file -> assertThat(tracker.unsavedText(file)).isEmpty());
    assertThat(tracker.editors())
        .as("a dirty file whose text is not told stays dirty")
        .extracting(OpenEditor::path)
        .containsExactly("/ws/d");
  }

  @Test
  void theUnsavedTextsTogetherAreBoundedByForgettingTheOnesToldLongestAgo() {
    String most = "x".repeat(EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS);
    long fit = ContextTracker.MAX_UNSAVED_TOTAL_CHARS / most.length();
    for (int i = 0; i < fit; i++) {
      tracker.apply(new EditorEvent.DirtyChanged(p("f" + i), true, most));
    }
    assertThat(tracker.unsavedText(p("f0"))).contains(most);

    tracker.apply(new EditorEvent.DirtyChanged(p("f0"), true, most));
    tracker.apply(new EditorEvent.DirtyChanged(p("one-more"), true, "y"));

    assertThat(tracker.unsavedText(p("f1"))).as("told longest ago").isEmpty();
    assertThat(tracker.unsavedText(p("f2"))).contains(most);
    assertThat(tracker.unsavedText(p("f0"))).as("told again, so newer").contains(most);
    assertThat(tracker.unsavedText(p("one-more"))).contains("y");
    assertThat(tracker.editors()).as("still dirty").hasSize((int) fit + 1);
  }

  @Test
  void anUnsavedTextIsFoundUnderTheFilesRealPathWhateverLinksTheEditorOpenedItThrough(
      @TempDir Path dir) throws Exception {
    Path real = Files.createDirectories(dir.resolve("real"));
    Path file = Files.writeString(real.resolve("a.txt"), "saved\n");
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    tracker.apply(new EditorEvent.DirtyChanged(link.resolve("a.txt"), true, "draft\n"));

    assertThat(tracker.unsavedText(file.toRealPath())).contains("draft\n");
    assertThat(tracker.unsavedText(link.resolve("a.txt"))).contains("draft\n");
    assertThat(tracker.unsavedText(real.resolve("b.txt"))).isEmpty();
  }
}
