package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.TextRange;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What the editor API's requests say, bound to the engine's records and checked, in one place: the
 * servlet only routes. Every refusal is a {@link BadRequest} whose message the caller gets with a
 * 400.
 */
final class EditorRequests {
  /** More diagnostics in one event than any file has; the rest would only cost memory. */
  private static final int MAX_DIAGNOSTICS_PER_EVENT = 10_000;

  /** More results than any editor finds; the companion passes on only the first hundred. */
  static final int MAX_CODE_RESULTS = 10_000;

  /** More files than a rename the user can review touches. */
  static final int MAX_RENAME_FILES = 1_000;

  private static final int MAX_NAME_CHARS = 1_000;
  private static final int MAX_KIND_CHARS = 100;
  private static final int MAX_LINE_TEXT_CHARS = 10_000;
  private static final int MAX_REFUSAL_CHARS = 4_000;

  private EditorRequests() {}

  static DiffId diffId(String segment) throws BadRequest {
    return id("diff", segment);
  }

  static DiffId changeId(String segment) throws BadRequest {
    return id("change", segment);
  }

  private static DiffId id(String kind, String segment) throws BadRequest {
    if (!DiffId.isValid(segment)) {
      throw new BadRequest(
          "malformed "
              + kind
              + " id '"
              + JsonFields.shown(segment)
              + "': a "
              + kind
              + " id is sixteen lowercase hex digits");
    }
    return new DiffId(segment);
  }

  /**
   * The edited text an accept carries, or null to accept the proposal as it is (no body, no {@code
   * content}, or a reject, whose {@code content} is ignored).
   */
  static String acceptedContent(JsonNode body, boolean accept) throws BadRequest {
    if (body == null) {
      return null;
    }
    JsonNode object = JsonFields.object(body);
    return accept ? JsonFields.optionalString(object, "content") : null;
  }

  /**
   * The edited files an accept of a change carries, by path: {@code {"files": [{"path",
   * "content"}]}} with each file's whole text; empty (no body, no {@code files}) to accept it as
   * proposed.
   */
  static Map<Path, String> editedFiles(JsonNode body) throws BadRequest {
    Map<Path, String> edited = new LinkedHashMap<>();
    if (body == null) {
      return edited;
    }
    JsonNode files = JsonFields.object(body).get("files");
    if (files == null || files.isNull()) {
      return edited;
    }
    if (!files.isArray()) {
      throw new BadRequest("files must be an array of {path, content}");
    }
    for (JsonNode file : files) {
      JsonNode object = JsonFields.object(file);
      Path path = absolutePath(object, "path");
      if (edited.put(path, JsonFields.string(object, "content")) != null) {
        throw new BadRequest("files names " + JsonFields.shown(path.toString()) + " twice");
      }
    }
    return edited;
  }

  static DiffId queryId(String segment) throws BadRequest {
    return id("query", segment);
  }

  /**
   * An editor's answer to a query: exactly one of {@code results} (not for a rename), {@code files}
   * (a rename's only: each changed file inside {@code roots}, with its whole new text) or {@code
   * error}. Every part is checked and bounded; nothing is cut, since a cut answer would be a wrong
   * one.
   */
  static CodeQueries.Answer codeAnswer(JsonNode body, boolean rename, List<Path> roots)
      throws BadRequest {
    JsonFields.object(body);
    List<String> given =
        java.util.stream.Stream.of("results", "files", "error").filter(body::has).toList();
    if (given.size() != 1) {
      throw new BadRequest(
          "an answer has exactly one of results, files (a rename's) or error; got "
              + (given.isEmpty() ? "none" : String.join(", ", given)));
    }
    switch (given.get(0)) {
      case "error" -> {
        return new CodeQueries.Answer.Refused(bounded(body, "error", MAX_REFUSAL_CHARS, true));
      }
      case "results" -> {
        if (rename) {
          throw new BadRequest(
              "a rename is answered with files (each file's new text), not results");
        }
        return new CodeQueries.Answer.Results(results(body.get("results")));
      }
      default -> {
        if (!rename) {
          throw new BadRequest("only a rename is answered with files; this query wants results");
        }
        return new CodeQueries.Answer.Files(renamedFiles(body.get("files"), roots));
      }
    }
  }

  private static List<CodeResult> results(JsonNode list) throws BadRequest {
    if (!list.isArray()) {
      throw new BadRequest(
          "results must be an array of {name?, kind?, path?, line?, column?, text?, declaration?}");
    }
    if (list.size() > MAX_CODE_RESULTS) {
      throw new BadRequest("at most " + MAX_CODE_RESULTS + " results, got " + list.size());
    }
    List<CodeResult> results = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      JsonNode r = list.get(i);
      try {
        JsonFields.object(r);
        String path = JsonFields.optionalString(r, "path");
        JsonNode declaration = r.get("declaration");
        if (declaration != null && !declaration.isBoolean() && !declaration.isNull()) {
          throw new BadRequest("declaration must be true or false");
        }
        results.add(
            new CodeResult(
                bounded(r, "name", MAX_NAME_CHARS, false),
                bounded(r, "kind", MAX_KIND_CHARS, false),
                path == null ? null : absolutePath(r, "path"),
                JsonFields.optionalPosition(r, "line"),
                JsonFields.optionalPosition(r, "column"),
                bounded(r, "text", MAX_LINE_TEXT_CHARS, false),
                declaration != null && declaration.asBoolean()));
      } catch (BadRequest | IllegalArgumentException e) {
        throw new BadRequest("results[" + i + "]: " + e.getMessage());
      }
    }
    return results;
  }

  private static Map<Path, String> renamedFiles(JsonNode list, List<Path> roots) throws BadRequest {
    if (!list.isArray() || list.isEmpty()) {
      throw new BadRequest(
          "files must be a non-empty array of {path, content}, each changed file's whole new"
              + " text; an editor that finds nothing to change answers error");
    }
    if (list.size() > MAX_RENAME_FILES) {
      throw new BadRequest("at most " + MAX_RENAME_FILES + " files, got " + list.size());
    }
    Map<Path, String> files = new LinkedHashMap<>();
    for (JsonNode file : list) {
      JsonNode object = JsonFields.object(file);
      Path path = absolutePath(object, "path");
      if (!insideWorkspace(path, roots)) {
        throw new BadRequest(
            "files names "
                + JsonFields.shown(path.toString())
                + ", which is outside the workspace");
      }
      if (files.put(path, JsonFields.string(object, "content")) != null) {
        throw new BadRequest("files names " + JsonFields.shown(path.toString()) + " twice");
      }
    }
    return files;
  }

  /**
   * Whether {@code path} (normalised) lies in a root, also once its links are followed: a rename
   * writes it.
   */
  private static boolean insideWorkspace(Path path, List<Path> roots) {
    if (roots.stream().noneMatch(path::startsWith)) {
      return false;
    }
    try {
      Path real = Files.exists(path) ? path.toRealPath() : path.getParent().toRealPath();
      for (Path root : roots) {
        if (Files.exists(root) && real.startsWith(root.toRealPath())) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** An optional string, or a required one with {@code required}, of at most {@code max} chars. */
  private static String bounded(JsonNode body, String field, int max, boolean required)
      throws BadRequest {
    String value = required ? JsonFields.text(body, field) : JsonFields.optionalString(body, field);
    if (value != null && value.length() > max) {
      throw new BadRequest(field + " is longer than " + max + " characters");
    }
    return value;
  }

  /**
   * The event {@code body} describes. Its bounds are the engine's: a path past PATH_MAX is refused
   * there, a selection is cut there, an unsaved text past its bound is refused there.
   */
  static EditorEvent event(JsonNode body) throws BadRequest {
    JsonFields.object(body);
    String type = JsonFields.text(body, "type");
    EditorEvent event;
    try {
      event =
          switch (type) {
            case "focus" -> new EditorEvent.FileFocused(absolutePath(body, "path"));
            case "close" -> new EditorEvent.FileClosed(absolutePath(body, "path"));
            case "delete" -> new EditorEvent.FileDeleted(absolutePath(body, "path"));
            case "rename" ->
                new EditorEvent.FileRenamed(absolutePath(body, "from"), absolutePath(body, "to"));
            case "cursor" ->
                new EditorEvent.CursorMoved(
                    absolutePath(body, "path"),
                    JsonFields.position(body, "line"),
                    JsonFields.position(body, "character"));
            case "selection" ->
                new EditorEvent.SelectionChanged(
                    absolutePath(body, "path"),
                    JsonFields.string(body, "text"),
                    body.has("range") ? range(body.get("range")) : null);
            case "diagnostics" ->
                new EditorEvent.DiagnosticsChanged(absolutePath(body, "path"), diagnostics(body));
            case "dirty" ->
                new EditorEvent.DirtyChanged(
                    absolutePath(body, "path"),
                    JsonFields.bool(body, "dirty"),
                    JsonFields.optionalString(body, "text"));
            case "trust" -> new EditorEvent.TrustChanged(JsonFields.bool(body, "trusted"));
            default ->
                throw new BadRequest(
                    "unknown event type '"
                        + JsonFields.shown(type)
                        + "'; expected focus, close, delete, rename, cursor, selection, diagnostics, dirty or trust");
          };
    } catch (IllegalArgumentException e) {
      throw new BadRequest(e.getMessage());
    }
    requireOnDisk(event);
    return event;
  }

  /**
   * Focus, cursor and selection name a file the CLIs will read: a mistyped path is refused, not
   * ignored.
   */
  private static void requireOnDisk(EditorEvent event) throws BadRequest {
    Path path = null;
    if (event instanceof EditorEvent.FileFocused focus) {
      path = focus.path();
    } else if (event instanceof EditorEvent.CursorMoved cursor) {
      path = cursor.path();
    } else if (event instanceof EditorEvent.SelectionChanged selection) {
      path = selection.path();
    }
    if (path != null && !Files.isRegularFile(path)) {
      throw new BadRequest("not a file on disk: " + path);
    }
  }

  private static List<Diagnostic> diagnostics(JsonNode body) throws BadRequest {
    JsonNode list = body.get("diagnostics");
    if (list == null || !list.isArray()) {
      throw new BadRequest("diagnostics must be an array (the file's whole list; [] clears it)");
    }
    if (list.size() > MAX_DIAGNOSTICS_PER_EVENT) {
      throw new BadRequest(
          "at most " + MAX_DIAGNOSTICS_PER_EVENT + " diagnostics per file, got " + list.size());
    }
    List<Diagnostic> diagnostics = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String where = "diagnostics[" + i + "]";
      JsonNode d = list.get(i);
      if (!d.isObject()) {
        throw new BadRequest(where + " must be an object {range, severity, message, source?}");
      }
      try {
        diagnostics.add(
            new Diagnostic(
                range(d.get("range")),
                Diagnostic.Severity.ofWireName(JsonFields.string(d, "severity")),
                JsonFields.text(d, "message"),
                JsonFields.optionalString(d, "source")));
      } catch (BadRequest | IllegalArgumentException e) {
        throw new BadRequest(where + ": " + e.getMessage());
      }
    }
    return diagnostics;
  }

  private static TextRange range(JsonNode range) throws BadRequest {
    if (range == null || !range.isObject()) {
      throw new BadRequest(
          "range must be {startLine, startCharacter, endLine, endCharacter}, 1-based");
    }
    try {
      return new TextRange(
          JsonFields.position(range, "startLine"),
          JsonFields.position(range, "startCharacter"),
          JsonFields.position(range, "endLine"),
          JsonFields.position(range, "endCharacter"));
    } catch (BadRequest | IllegalArgumentException e) {
      throw new BadRequest("range: " + e.getMessage());
    }
  }

  private static Path absolutePath(JsonNode body, String field) throws BadRequest {
    return JsonFields.absolutePath(field, JsonFields.text(body, field)).normalize();
  }
}
