package dev.companion4j.extension.mcp;

import static dev.companion4j.extension.mcp.PlainEditor.call;
import static dev.companion4j.extension.mcp.PlainEditor.server;
import static dev.companion4j.extension.mcp.PlainEditor.start;
import static dev.companion4j.extension.mcp.PlainEditor.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.TextRange;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools against a real companion (the engine's, with a small host); ExtensionIT asks them
 * through the real CLIs.
 */
class IdeToolsServerTest {
  @Test
  void withoutACompanionStatusSaysWhatToDoAndTheOtherToolsFailWithTheSameAdvice(
      @TempDir Path temp) {
    Path workspace = temp.resolve("project");
    IdeToolsServer server = server(temp, workspace);
    assertThat(server.tools())
        .extracting(t -> t.tool().name())
        .containsExactlyElementsOf(IdeToolsServer.TOOL_NAMES);

    McpSchema.CallToolResult status = call(server, "ide_status", Map.of());
    assertThat(status.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(text(status))
        .contains("No IDE companion serves " + workspace)
        .contains("companion4j serve");
    for (String tool :
        List.of("get_diagnostics", "get_open_editors", "get_selection", "get_pending_diffs")) {
      McpSchema.CallToolResult result = call(server, tool, Map.of());
      assertThat(result.isError()).as(tool).isTrue();
      assertThat(text(result)).as(tool).contains("No IDE companion serves " + workspace);
    }
    assertThat(text(call(server, "open_file", Map.of("path", "A.java"))))
        .contains("No IDE companion serves");
  }

  @Test
  void anEditorWithoutTheFeaturesIsNamedInTheRefusals(@TempDir Path temp) throws Exception {
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    Path a = Files.writeString(workspace.resolve("A.java"), "class A {}\n");
    try (Companion companion = start(temp, new PlainEditor(workspace, Set.of()))) {
      IdeToolsServer server = server(temp, workspace);

      McpSchema.CallToolResult diagnostics = call(server, "get_diagnostics", Map.of());
      assertThat(diagnostics.isError()).isTrue();
      assertThat(text(diagnostics)).contains("Plain Editor does not report diagnostics");
      McpSchema.CallToolResult open =
          call(server, "open_file", Map.of("path", "A.java", "line", 1));
      assertThat(open.isError()).isTrue();
      assertThat(text(open)).contains("Plain Editor cannot open files on request");

      companion.editorEvent(
          new EditorEvent.SelectionChanged(a, "class A", new TextRange(1, 1, 1, 8)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !companion.context().openFiles().isEmpty());
      assertThat(text(call(server, "get_selection", Map.of())))
          .contains("Selected in " + a + " from line 1, column 1 to line 1, column 8")
          .contains("class A");
      assertThat(text(call(server, "get_open_editors", Map.of())))
          .contains("- " + a + " (active; 7 characters selected)")
          .contains("does not report unsaved changes");
      assertThat(text(call(server, "get_pending_diffs", Map.of())))
          .isEqualTo("No edits wait for the user's review.");
    }
  }

  @Test
  void diagnosticsAreListedMostSevereFirstAndCappedAndFilesOpenOnlyInsideTheWorkspace(
      @TempDir Path temp) throws Exception {
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    Path a = Files.writeString(workspace.resolve("A.java"), "class A {}\n");
    Path b = Files.writeString(workspace.resolve("B.java"), "class B {}\n");
    Path outside = Files.writeString(temp.resolve("Outside.java"), "class O {}\n");
    PlainEditor host =
        new PlainEditor(
            workspace,
            Set.of(HostFeature.OPEN_FILE, HostFeature.DIAGNOSTICS, HostFeature.DIRTY_STATE));
    try (Companion companion = start(temp, host)) {
      IdeToolsServer server = server(temp, workspace);
      assertThat(text(call(server, "get_diagnostics", Map.of()))).contains("No diagnostics");

      List<Diagnostic> warnings = new ArrayList<>();
      IntStream.rangeClosed(1, 150)
          .forEach(
              i ->
                  warnings.add(
                      new Diagnostic(
                          TextRange.at(i, 1),
                          Diagnostic.Severity.WARNING,
                          "warning " + i,
                          "lint")));
      companion.editorEvent(new EditorEvent.DiagnosticsChanged(b, warnings));
      companion.editorEvent(
          new EditorEvent.DiagnosticsChanged(
              a,
              List.of(
                  new Diagnostic(
                      new TextRange(3, 17, 3, 23),
                      Diagnostic.Severity.ERROR,
                      "incompatible types: String cannot be converted to int",
                      "javac"))));
      companion.editorEvent(new EditorEvent.FileFocused(a));
      companion.editorEvent(new EditorEvent.DirtyChanged(a, true));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  companion.diagnostics().size() == 2
                      && !companion.context().openFiles().isEmpty());

      String all = text(call(server, "get_diagnostics", Map.of()));
      assertThat(all)
          .startsWith("The editor reports 1 error, 150 warnings in 2 files.")
          .contains(
              a
                  + " (1 error):\n  line 3, column 17: error: incompatible types: String cannot be converted to int [javac]")
          .contains("line 99, column 1: warning: warning 99 [lint]")
          .doesNotContain("warning 100 [lint]")
          .contains("…and 51 more not listed (51 warnings among them)");
      assertThat(all.indexOf(a.toString()))
          .as("errors first")
          .isLessThan(all.indexOf(b.toString()));
      String one = text(call(server, "get_diagnostics", Map.of("path", "A.java")));
      assertThat(one).contains("1 error").doesNotContain("warning");
      assertThat(text(call(server, "get_diagnostics", Map.of("path", "Other.java"))))
          .contains("No diagnostics for " + workspace.resolve("Other.java"))
          .contains("It is not open in the editor");
      assertThat(text(call(server, "get_open_editors", Map.of())))
          .contains(
              "- "
                  + a
                  + " (active; unsaved changes: the file on disk is older than the editor's text)");

      McpSchema.CallToolResult opened =
          call(server, "open_file", Map.of("path", "B.java", "line", 12, "column", 3));
      assertThat(opened.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(text(opened)).isEqualTo("Opened B.java at line 12, column 3 in Plain Editor.");
      assertThat(host.opened).containsExactly(b + ":12:3");

      McpSchema.CallToolResult refused =
          call(server, "open_file", Map.of("path", outside.toString(), "line", 1));
      assertThat(refused.isError()).isTrue();
      assertThat(text(refused)).contains("Not opened").contains("outside the workspace");
      assertThat(call(server, "open_file", Map.of("path", "A.java", "line", "x")).isError())
          .isTrue();
      assertThat(host.opened).hasSize(1);
    }
  }
}
