package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.code.Renames;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The companion's routes under {@code /ide/code/}: the editor's knowledge of code for the user's
 * tools (definitions, references, symbols, hierarchies) and a rename the user reviews as one
 * change. Each query is checked here (the feature declared, the file inside the workspace, the
 * position inside the file) before the host is asked, and each answer is bounded. Runs on Jetty's
 * threads; waits for the host at most {@link CompanionHost#CODE_ANSWER_BOUND}.
 */
public final class CodeRoutes extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger log = LoggerFactory.getLogger(CodeRoutes.class);
  public static final String PATH_SPEC = "/ide/code/*";

  /** The most results an answer carries; the rest are counted. */
  public static final int MAX_RESULTS = 100;

  /** The longest one {@code GET /ide/code/changes/{id}} waits for the user. */
  static final int MAX_WAIT_SECONDS = 60;

  private static final int MAX_BODY_BYTES = 64 * 1024;
  private static final int MAX_FILE_BYTES = 16 * 1024 * 1024;
  private static final String CHANGES = "/changes/";

  private final transient Code companion;

  /** What the routes ask of the companion they serve, beyond what the other IDE routes ask. */
  public interface Code extends IdeRoutes.Ide {
    /** The editor's unsaved text of {@code file}, when it told it. */
    Optional<String> unsavedText(Path file);

    /** Asks the host on the code thread; completes with its results or its exception. */
    CompletableFuture<List<CodeResult>> findCode(CodeQuery query);

    /**
     * Computes the rename on the code thread, proposes its files as one change and, once the user
     * accepted, has the host write them; completes with the change's id once it is shown.
     */
    CompletableFuture<DiffId> rename(CodeQuery.Rename rename);

    /** The end of a rename proposed here: completes when it ends; empty for an unknown id. */
    Optional<CompletableFuture<Renames.End>> renameEnd(DiffId id);
  }

  public CodeRoutes(Code companion) {
    this.companion = companion;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String route = route(req);
    if (!route.startsWith(CHANGES)) {
      refuseRoute(req, resp);
      return;
    }
    String id = route.substring(CHANGES.length());
    Optional<CompletableFuture<Renames.End>> ending =
        DiffId.isValid(id) ? companion.renameEnd(new DiffId(id)) : Optional.empty();
    if (ending.isEmpty()) {
      HttpBodies.error(resp, 404, "no rename with this id was proposed here");
      return;
    }
    int wait;
    try {
      String given = req.getParameter("wait");
      wait = given == null ? 0 : Integer.parseInt(given);
      if (wait < 0 || wait > MAX_WAIT_SECONDS) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      HttpBodies.error(resp, 400, "wait is a number of seconds from 0 to " + MAX_WAIT_SECONDS);
      return;
    }
    Renames.End end;
    try {
      end = ending.get().get(wait, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      HttpBodies.json(resp, 200, Map.of("change", id, "state", "pending"));
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      HttpBodies.error(resp, 503, "the companion is stopping");
      return;
    }
    HttpBodies.json(resp, 200, ended(id, end));
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    byte[] bytes = HttpBodies.readFirst(req, resp, MAX_BODY_BYTES);
    if (bytes == null) {
      return;
    }
    String route = route(req);
    Optional<HostFeature> feature = featureOf(route);
    if (feature.isEmpty()) {
      refuseRoute(req, resp);
      return;
    }
    String name = companion.ideInfo().displayName();
    if (!companion.features().contains(feature.get())) {
      HttpBodies.error(resp, 501, name + " does not answer " + route.substring(1) + " questions");
      return;
    }
    CodeQuery query;
    try {
      query = query(feature.get(), JsonFields.object(JsonFields.parse(bytes)));
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
      return;
    }
    try {
      if (query instanceof CodeQuery.Rename rename) {
        DiffId id = bounded(companion.rename(rename));
        HttpBodies.json(resp, 202, Map.of("change", id.value(), "state", "pending"));
      } else {
        HttpBodies.json(resp, 200, answer(bounded(companion.findCode(query))));
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof HostActionException || cause instanceof IllegalArgumentException) {
        HttpBodies.error(resp, 422, cause.getMessage());
      } else {
        // The host's exception is for its log, not for the model that asked.
        log.warn("{} failed to answer {}", name, query, cause);
        HttpBodies.error(resp, 503, name + " failed to answer; its log says why");
      }
    } catch (TimeoutException e) {
      HttpBodies.error(
          resp,
          504,
          name + " did not answer within " + CompanionHost.CODE_ANSWER_BOUND.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      HttpBodies.error(resp, 503, "the companion is stopping");
    }
  }

  private static <T> T bounded(CompletableFuture<T> answer)
      throws ExecutionException, TimeoutException, InterruptedException {
    try {
      return answer.get(CompanionHost.CODE_ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      answer.cancel(false);
      throw e;
    }
  }

  /** The route's feature: {@code /definition} is {@link HostFeature#DEFINITION}, and so on. */
  private static Optional<HostFeature> featureOf(String route) {
    for (HostFeature f : QUERIES) {
      if (route.equals("/" + f.wireName())) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  private static final List<HostFeature> QUERIES =
      List.of(
          HostFeature.DEFINITION,
          HostFeature.REFERENCES,
          HostFeature.DOCUMENT_SYMBOLS,
          HostFeature.WORKSPACE_SYMBOLS,
          HostFeature.CALL_HIERARCHY,
          HostFeature.TYPE_HIERARCHY,
          HostFeature.RENAME);

  private CodeQuery query(HostFeature feature, JsonNode body) throws BadRequest {
    return switch (feature) {
      case DEFINITION -> new CodeQuery.Definition(position(body));
      case REFERENCES -> new CodeQuery.References(position(body));
      case DOCUMENT_SYMBOLS -> new CodeQuery.DocumentSymbols(file(body));
      case WORKSPACE_SYMBOLS -> {
        String query = JsonFields.string(body, "query").strip();
        if (query.isEmpty() || query.length() > 200) {
          throw new BadRequest("query must be part of a symbol's name, 1 to 200 characters");
        }
        yield new CodeQuery.WorkspaceSymbols(query);
      }
      case CALL_HIERARCHY ->
          new CodeQuery.CallHierarchy(
              position(body), direction(body, "incoming", "outgoing").equals("incoming"));
      case TYPE_HIERARCHY ->
          new CodeQuery.TypeHierarchy(
              position(body), direction(body, "supertypes", "subtypes").equals("supertypes"));
      case RENAME -> {
        String newName = JsonFields.string(body, "newName").strip();
        if (newName.isEmpty()
            || newName.length() > 200
            || !newName
                .codePoints()
                .noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
          throw new BadRequest("newName must be an identifier: 1 to 200 characters, no spaces");
        }
        yield new CodeQuery.Rename(position(body), newName);
      }
      default -> throw new IllegalStateException(feature + " is not a query");
    };
  }

  private static String direction(JsonNode body, String one, String other) throws BadRequest {
    String direction = JsonFields.string(body, "direction");
    if (!direction.equals(one) && !direction.equals(other)) {
      throw new BadRequest("direction must be " + one + " or " + other);
    }
    return direction;
  }

  /**
   * The file a query names: absolute, or relative to the workspace (the first root that has it),
   * and checked as {@code /ide/open} checks it.
   */
  private Path file(JsonNode body) throws BadRequest {
    String given = JsonFields.string(body, "path");
    Path path;
    try {
      path = Path.of(given);
    } catch (java.nio.file.InvalidPathException e) {
      throw new BadRequest("path is not a valid path: " + JsonFields.shown(given));
    }
    List<Path> roots = companion.workspaceRoots();
    if (!path.isAbsolute()) {
      if (roots.isEmpty()) {
        throw new BadRequest("no workspace is open, so path must be absolute");
      }
      Path relative = path;
      path =
          roots.stream()
              .map(root -> root.resolve(relative))
              .filter(Files::exists)
              .findFirst()
              .orElse(roots.get(0).resolve(relative));
    }
    return IdeRoutes.checkedFile(path.normalize(), roots, companion.workspacePath());
  }

  /** A position inside the file as the editor has it now (its unsaved text, else the disk). */
  private CodeQuery.Position position(JsonNode body) throws BadRequest {
    Path file = file(body);
    int line = JsonFields.position(body, "line");
    int column = JsonFields.position(body, "column");
    String text = text(file);
    List<String> lines = text.lines().toList();
    if (line > Math.max(1, lines.size())) {
      throw new BadRequest(
          "line "
              + line
              + " is outside "
              + file.getFileName()
              + ", which has "
              + lines.size()
              + " lines");
    }
    String lineText = lines.isEmpty() ? "" : lines.get(line - 1);
    int characters = lineText.codePointCount(0, lineText.length());
    if (column > characters + 1) {
      throw new BadRequest(
          "column "
              + column
              + " is outside line "
              + line
              + " of "
              + file.getFileName()
              + ", which has "
              + characters
              + " characters");
    }
    return new CodeQuery.Position(file, line, column);
  }

  private String text(Path file) throws BadRequest {
    Optional<String> unsaved = companion.unsavedText(file);
    if (unsaved.isPresent()) {
      return unsaved.get();
    }
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new BadRequest(file + " is larger than " + MAX_FILE_BYTES / (1024 * 1024) + " MiB");
      }
      return Files.readString(file);
    } catch (IOException e) {
      throw new BadRequest(file + " cannot be read as UTF-8 text");
    }
  }

  /** The bounded answer: at most {@link #MAX_RESULTS} results, the rest counted. */
  static Map<String, Object> answer(List<CodeResult> results) {
    List<Map<String, Object>> shown = new ArrayList<>();
    for (CodeResult r : results.subList(0, Math.min(results.size(), MAX_RESULTS))) {
      Map<String, Object> one = new LinkedHashMap<>();
      if (r.name() != null) {
        one.put("name", r.name());
      }
      if (r.kind() != null) {
        one.put("kind", r.kind());
      }
      if (r.path() != null) {
        one.put("path", r.path().toString());
        one.put("line", r.line());
        one.put("column", r.character());
        one.put("text", r.lineText());
      }
      if (r.declaration()) {
        one.put("declaration", true);
      }
      shown.add(one);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("results", shown);
    answer.put("more", Math.max(0, results.size() - MAX_RESULTS));
    return answer;
  }

  private static Map<String, Object> ended(String id, Renames.End end) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("change", id);
    ChangeOutcome outcome = end.outcome();
    if (outcome == null) {
      body.put("state", "notShown");
      body.put("error", end.failure());
    } else if (outcome instanceof ChangeOutcome.Accepted accepted) {
      body.put("state", end.failure() == null ? "accepted" : "writeFailed");
      body.put("files", accepted.contents().keySet().stream().map(Path::toString).toList());
      if (end.failure() != null) {
        body.put("error", end.failure());
      }
    } else if (outcome instanceof ChangeOutcome.ChangedOnDisk changed) {
      body.put("state", "changedOnDisk");
      body.put("files", changed.paths().stream().map(Path::toString).toList());
    } else {
      body.put("state", outcome instanceof ChangeOutcome.Rejected ? "rejected" : "stopped");
    }
    return body;
  }

  private static String route(HttpServletRequest req) {
    return IdeRoutes.route(req);
  }

  private static void refuseRoute(HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    IdeRoutes.notFound(
        req,
        resp,
        "POST /ide/code/{definition, references, documentSymbols, workspaceSymbols, callHierarchy,"
            + " typeHierarchy, rename} and GET /ide/code/changes/{id}?wait=seconds");
  }
}
