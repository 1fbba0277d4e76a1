package dev.companion4j.extension.mcp;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.DiagnosticsReport;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.OpenEditor;
import dev.companion4j.engine.OpenEditorsReport;
import dev.companion4j.engine.TextRange;
import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.ide.StatusText;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/** What each IDE tool asks the companion and how it tells the model; see {@link IdeToolsServer}. */
final class IdeTools {
  /** The most diagnostics listed in one answer; the rest are counted by severity. */
  static final int MAX_LISTED_DIAGNOSTICS = 100;

  /** Longer selections are cut in the text; the structured answer has them whole. */
  private static final int MAX_SELECTION_CHARS = 8000;

  private static final JsonMapper JSON = JsonMapper.shared();

  private final IdeLink link;

  /** Asked at each call: the roots of an editor's companion change as projects open and close. */
  private final Supplier<Path> workspace;

  IdeTools(IdeLink link, Supplier<Path> workspace) {
    this.link = link;
    this.workspace = workspace;
  }

  CallToolResult status() {
    Optional<CompanionStatus> status = link.status(workspace.get());
    if (status.isEmpty()) {
      return CallToolResult.builder().addTextContent(StatusText.none(workspace.get())).build();
    }
    return answer(StatusText.of(status.get()), status.get());
  }

  CallToolResult diagnostics(String path) {
    String file = null;
    if (path != null) {
      Optional<String> resolved = resolve(path);
      if (resolved.isEmpty()) {
        return error(
            "Not a valid path: " + path + "; name a file absolute or relative to the workspace.");
      }
      file = resolved.get();
    }
    String route =
        "/ide/diagnostics"
            + (file == null ? "" : "?path=" + URLEncoder.encode(file, StandardCharsets.UTF_8));
    Optional<IdeLink.Answer> asked = link.ask(workspace.get(), "GET", route, null);
    if (asked.isEmpty()) {
      return noCompanion();
    }
    if (asked.get().status() != 200) {
      return error(asked.get().error());
    }
    DiagnosticsReport report = asked.get().as(DiagnosticsReport.class);
    List<FileDiagnostics> files = report.files().stream().filter(f -> f.total() > 0).toList();
    if (files.isEmpty()) {
      return answer(
          file == null
              ? "No diagnostics: the editor reports no errors or warnings in the open files."
              : "No diagnostics for " + file + "." + notOpenNote(file),
          report);
    }
    return answer(diagnosticsText(files), report);
  }

  /** Every file's problems, most severe first, listed up to {@link #MAX_LISTED_DIAGNOSTICS}. */
  static String diagnosticsText(List<FileDiagnostics> files) {
    StringBuilder text =
        new StringBuilder("The editor reports ")
            .append(
                counts(
                    files.stream().flatMap(f -> f.diagnostics().stream()).toList(),
                    files.stream().mapToInt(FileDiagnostics::total).sum()))
            .append(files.size() == 1 ? "" : " in " + files.size() + " files")
            .append(".\n");
    int listed = 0;
    List<Diagnostic> unlisted = new ArrayList<>();
    int unlistedTotal = 0;
    for (FileDiagnostics f : files) {
      text.append('\n')
          .append(f.path())
          .append(" (")
          .append(counts(f.diagnostics(), f.total()))
          .append("):\n");
      for (Diagnostic d : f.diagnostics()) {
        if (listed == MAX_LISTED_DIAGNOSTICS) {
          unlisted.add(d);
          continue;
        }
        listed++;
        TextRange r = d.range();
        text.append("  line ")
            .append(r.startLine())
            .append(", column ")
            .append(r.startCharacter())
            .append(": ")
            .append(d.severity().wireName())
            .append(": ")
            .append(d.message().replace('\n', ' '))
            .append(d.source() == null ? "" : " [" + d.source() + "]")
            .append('\n');
      }
      unlistedTotal += f.total() - f.diagnostics().size();
    }
    if (!unlisted.isEmpty() || unlistedTotal > 0) {
      text.append("\n…and ")
          .append(unlisted.size() + unlistedTotal)
          .append(" more not listed")
          .append(
              unlisted.isEmpty() ? "" : " (" + counts(unlisted, unlisted.size()) + " among them)")
          .append("; ask for one file with `path` to see its own.\n");
    }
    return text.toString().stripTrailing();
  }

  private static String counts(List<Diagnostic> kept, int total) {
    List<String> parts = new ArrayList<>();
    for (Diagnostic.Severity severity : Diagnostic.Severity.values()) {
      long n = kept.stream().filter(d -> d.severity() == severity).count();
      if (n > 0) {
        parts.add(
            n
                + " "
                + severity.wireName()
                + (n == 1 || severity == Diagnostic.Severity.INFORMATION ? "" : "s"));
      }
    }
    String counted = String.join(", ", parts);
    return total > kept.size()
        ? counted + " and " + (total - kept.size()) + " less severe"
        : counted;
  }

  private String notOpenNote(String file) {
    return editors()
        .filter(r -> r.editors().stream().noneMatch(e -> e.path().equals(file)))
        .map(
            r ->
                " It is not open in the editor, which reports diagnostics for open files: open it with open_file first.")
        .orElse("");
  }

  CallToolResult openEditors() {
    Optional<IdeLink.Answer> asked = link.ask(workspace.get(), "GET", "/ide/editors", null);
    if (asked.isEmpty()) {
      return noCompanion();
    }
    if (asked.get().status() != 200) {
      return error(asked.get().error());
    }
    OpenEditorsReport report = asked.get().as(OpenEditorsReport.class);
    if (report.editors().isEmpty()) {
      return answer("No files are open in the editor.", report);
    }
    StringBuilder text = new StringBuilder("Open in the editor, newest first:\n");
    for (OpenEditor e : report.editors()) {
      text.append("- ").append(e.path());
      List<String> notes = new ArrayList<>();
      if (e.active()) {
        notes.add(
            "active"
                + (e.cursor() == null
                    ? ""
                    : ", cursor at line "
                        + e.cursor().line()
                        + ", column "
                        + e.cursor().character()));
      }
      if (e.selectedText() != null) {
        notes.add(e.selectedText().length() + " characters selected");
      }
      if (e.dirty()) {
        notes.add("unsaved changes: the file on disk is older than the editor's text");
      }
      text.append(notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")").append('\n');
    }
    if (!report.dirtyStateReported()) {
      text.append("The editor does not report unsaved changes, so none are marked.\n");
    }
    return answer(text.toString().stripTrailing(), report);
  }

  CallToolResult selection() {
    Optional<OpenEditorsReport> report = editors();
    if (report.isEmpty()) {
      return noCompanion();
    }
    Optional<OpenEditor> active =
        report.get().editors().stream().filter(OpenEditor::active).findFirst();
    if (active.isEmpty()) {
      return answer("No file is active in the editor, so nothing is selected.", Map.of());
    }
    OpenEditor e = active.get();
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("path", e.path());
    if (e.selectedText() == null) {
      return answer(
          "Nothing is selected in "
              + e.path()
              + (e.cursor() == null
                  ? "."
                  : "; the cursor is at line "
                      + e.cursor().line()
                      + ", column "
                      + e.cursor().character()
                      + "."),
          structured);
    }
    structured.put("text", e.selectedText());
    String where = "";
    if (e.selection() != null) {
      TextRange r = e.selection();
      structured.put("range", r);
      where =
          " from line "
              + r.startLine()
              + ", column "
              + r.startCharacter()
              + " to line "
              + r.endLine()
              + ", column "
              + r.endCharacter();
    }
    String shown =
        e.selectedText().length() > MAX_SELECTION_CHARS
            ? e.selectedText().substring(0, MAX_SELECTION_CHARS)
                + "\n… ["
                + (e.selectedText().length() - MAX_SELECTION_CHARS)
                + " more characters]"
            : e.selectedText();
    return answer("Selected in " + e.path() + where + ":\n```\n" + shown + "\n```", structured);
  }

  CallToolResult open(String path, int line, int column) {
    if (path == null) {
      return error(
          "\"path\" is required: the file to show, absolute or relative to the workspace. Call it as: "
              + "open_file {\"path\": \"src/Main.java\", \"line\": 12, \"column\": 5}.");
    }
    Optional<String> file = resolve(path);
    if (file.isEmpty()) {
      return error(
          "Not a valid path: " + path + "; name a file absolute or relative to the workspace.");
    }
    Map<String, Object> place = new LinkedHashMap<>();
    place.put("path", file.get());
    if (line > 0) {
      place.put("line", line);
    }
    if (column > 0) {
      place.put("character", column);
    }
    Optional<IdeLink.Answer> asked = link.ask(workspace.get(), "POST", "/ide/open", place);
    if (asked.isEmpty()) {
      return noCompanion();
    }
    if (asked.get().status() != 200) {
      return error("Not opened: " + asked.get().error());
    }
    return answer(asked.get().body().path("message").asString(), place);
  }

  CallToolResult pendingDiffs() {
    Optional<CompanionStatus> status = link.status(workspace.get());
    if (status.isEmpty()) {
      return noCompanion();
    }
    List<CompanionStatus.Diff> diffs = status.get().pendingDiffs();
    Map<String, Object> structured = Map.of("pendingDiffs", diffs);
    if (diffs.isEmpty()) {
      return answer("No edits wait for the user's review.", structured);
    }
    StringBuilder text =
        new StringBuilder(diffs.size() == 1 ? "1 edit waits" : diffs.size() + " edits wait")
            .append(" for the user's review in ")
            .append(status.get().ide().displayName())
            .append(":\n");
    for (CompanionStatus.Diff d : diffs) {
      text.append("- ")
          .append(d.filePath())
          .append(" (proposed")
          .append(d.clientName() == null ? " by a CLI that has left" : " by " + d.clientName())
          .append(d.openedAt() == null ? "" : " at " + d.openedAt())
          .append("; diff id ")
          .append(d.id())
          .append(")\n");
    }
    return answer(text.toString().stripTrailing(), structured);
  }

  private Optional<OpenEditorsReport> editors() {
    return link.ask(workspace.get(), "GET", "/ide/editors", null)
        .filter(a -> a.status() == 200)
        .map(a -> a.as(OpenEditorsReport.class));
  }

  /** {@code path} made absolute against the workspace, as the model may name files either way. */
  private Optional<String> resolve(String path) {
    try {
      return Optional.of(workspace.get().resolve(path).toAbsolutePath().normalize().toString());
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  private CallToolResult noCompanion() {
    return error(StatusText.none(workspace.get()));
  }

  /** An answer: {@code text} for the model, {@code structured} as the same data. */
  static CallToolResult answer(String text, Object structured) {
    return CallToolResult.builder()
        .addTextContent(text)
        .structuredContent(JSON.convertValue(structured, Map.class))
        .build();
  }

  static CallToolResult error(String text) {
    return CallToolResult.builder().addTextContent(text).isError(true).build();
  }
}
