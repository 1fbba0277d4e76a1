package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.ContextUpdate;
import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.TextRange;
import dev.companion4j.engine.http.EventStreams;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.http.HttpBodies.BadRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The editor API at {@code /editor}: any editor (a Vim autocmd with curl, an Emacs hook, the
 * review page) feeds events, lists diffs and answers them by id, and follows an event stream. It
 * sits behind the companion's token and Host checks; see docs/editor-api.md.
 */
public final class EditorApi extends HttpServlet implements CompanionListener {
  private static final long serialVersionUID = 1L;
  /** The mount point under which {@link #pathSpec()} serves. */
  public static final String PATH = "/editor";
  private static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
  /** What the review page says it is with {@code ?client=}: it follows the stream but opens no files. */
  public static final String REVIEW_PAGE = "review-page";
  /** More diagnostics in one event than any file has; the rest would only cost memory. */
  private static final int MAX_DIAGNOSTICS_PER_EVENT = 10_000;
  /** Only the newest context matters to a subscriber that fell behind. */
  private static final String CONTEXT_KEY = "context";
  private static final Pattern ONE_DIFF = Pattern.compile("/diffs/([^/]+)");
  private static final Pattern ANSWER = Pattern.compile("/diffs/([^/]+)/(accept|reject)");

  private final AtomicReference<Companion> companion = new AtomicReference<>();
  private final transient EventStreams events = new EventStreams();

  public static String pathSpec() {
    return PATH + "/*";
  }

  /** Binds the API to the companion it serves; call before the companion starts. */
  public void attach(Companion target) {
    companion.set(target);
    target.addListener(this);
  }

  /** Ends every event stream, e.g. before the companion stops. */
  public void shutdown() {
    events.close();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String route = HttpBodies.route(req);
    Matcher one = ONE_DIFF.matcher(route);
    switch (route) {
      case "/state" -> HttpBodies.json(resp, 200, EditorJson.State.of(companion.get()));
      case "/diffs" -> {
        Companion c = companion.get();
        List<ConnectedClient> clients = c.clients();
        HttpBodies.json(resp, 200, c.pendingDiffs().stream().map(d -> EditorJson.Diff.of(d, clients)).toList());
      }
      case "/events/stream" -> subscribe(req, resp);
      // What `companion4j run` sets, so an editor's terminal starts a CLI that connects here.
      case "/terminal" -> HttpBodies.json(resp, 200, companion.get().terminalEnvironment());
      default -> {
        if (one.matches()) {
          getDiff(one.group(1), resp);
        } else {
          notFound(req, resp);
        }
      }
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    byte[] bytes = HttpBodies.readFirst(req, resp, MAX_BODY_BYTES);
    if (bytes == null) {
      return;
    }
    String route = HttpBodies.route(req);
    Matcher answer = ANSWER.matcher(route);
    if (route.equals("/diffs/accept") || route.equals("/diffs/reject")) {
      HttpBodies.error(resp, 404, "POST " + PATH + route + " is gone: it could answer a proposal the caller never saw. "
          + "Answer a diff by its id (from GET " + PATH + "/diffs or a diffOpened event) at "
          + PATH + "/diffs/{id}/accept or " + PATH + "/diffs/{id}/reject");
      return;
    }
    if (!route.equals("/events") && !answer.matches()) {
      notFound(req, resp);
      return;
    }
    try {
      if (answer.matches()) {
        answer(diffId(answer.group(1)), answer.group(2).equals("accept"), HttpBodies.jsonOrNull(bytes), resp);
      } else {
        companion.get().editorEvent(parseEvent(requireObject(HttpBodies.jsonOrNull(bytes))));
        resp.setStatus(204);
      }
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    }
  }

  private void subscribe(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String client = req.getParameter("client");
    events.subscribe(req, resp, REVIEW_PAGE.equals(client) ? REVIEW_PAGE : "");
  }

  /**
   * Asks the editors following the event stream to show a place, with an {@code openFile} event
   * to every subscriber; line and character are 1-based, 0 when not given.
   *
   * @return how many subscribers other than review pages were asked
   */
  public int requestOpen(Path path, int line, int character) {
    Map<String, Object> place = new LinkedHashMap<>();
    place.put("path", path.toString());
    if (line > 0) {
      place.put("line", line);
    }
    if (character > 0) {
      place.put("character", character);
    }
    events.publish("openFile", null, place);
    return events.subscribersExcept(REVIEW_PAGE);
  }

  private void getDiff(String segment, HttpServletResponse resp) throws IOException {
    DiffId id;
    try {
      id = diffId(segment);
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
      return;
    }
    Companion c = companion.get();
    Optional<PendingDiff> diff = c.pendingDiff(id);
    if (diff.isPresent()) {
      HttpBodies.json(resp, 200, EditorJson.Diff.of(diff.get(), c.clients()));
    } else {
      HttpBodies.error(resp, 404, "diff " + id + " is not pending");
    }
  }

  /** Answers diff {@code id}; only a 204 means the CLI will hear it. */
  private void answer(DiffId id, boolean accept, JsonNode body, HttpServletResponse resp)
      throws IOException, BadRequest {
    String content = null;
    if (body != null) {
      JsonNode value = requireObject(body).get("content");
      if (accept && value != null && !value.isNull()) {
        if (!value.isString()) {
          throw new BadRequest("content must be a string");
        }
        content = value.asString();
      }
    }
    AnswerResult result = accept ? companion.get().acceptDiff(id, content) : companion.get().rejectDiff(id);
    if (result instanceof AnswerResult.Sent) {
      resp.setStatus(204);
    } else if (result instanceof AnswerResult.Ended ended) {
      EditorJson.Outcome outcome = EditorJson.Outcome.of(ended.outcome());
      if (outcome == EditorJson.Outcome.CLIENT_GONE) {
        HttpBodies.json(resp, 410, new EditorJson.Refusal(outcome.why, outcome.wireName));
      } else {
        HttpBodies.json(resp, 409, new EditorJson.Refusal("diff " + id + " is no longer pending: " + outcome.why, outcome.wireName));
      }
    } else {
      HttpBodies.error(resp, 404, "no diff " + id + " is known: it was never proposed here, or it ended long ago");
    }
  }

  @Override
  public void clientConnected(ConnectedClient client) {
    events.publish("clientConnected", null, CompanionStatus.Client.of(client));
  }

  @Override
  public void clientDisconnected(ConnectedClient client) {
    events.publish("clientDisconnected", null, CompanionStatus.Client.of(client));
  }

  @Override
  public void diffOpened(PendingDiff diff) {
    events.publish("diffOpened", null, EditorJson.Diff.of(diff, companion.get().clients()));
  }

  @Override
  public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
    events.publish("diffClosed", null, EditorJson.ClosedDiff.of(diff, outcome));
  }

  @Override
  public void contextSent(IdeContext context) {
    events.publish("context", CONTEXT_KEY, ContextUpdate.of(context));
  }

  @Override
  public void diagnosticsChanged(FileDiagnostics diagnostics) {
    // Per file, only the newest list matters to a subscriber that fell behind.
    events.publish("diagnostics", "diagnostics:" + diagnostics.path(), diagnostics);
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    HttpBodies.error(resp, 404, "no editor API route " + req.getMethod() + " " + PATH + HttpBodies.route(req));
  }

  private static DiffId diffId(String segment) throws BadRequest {
    if (!DiffId.isValid(segment)) {
      throw new BadRequest("malformed diff id '" + segment + "': a diff id is sixteen lowercase hex digits");
    }
    return new DiffId(segment);
  }

  private static JsonNode requireObject(JsonNode body) throws BadRequest {
    if (body == null || !body.isObject()) {
      throw new BadRequest("expected a JSON object");
    }
    return body;
  }

  /**
   * The event {@code body} describes. Its bounds are the engine's: a path past PATH_MAX is refused
   * there, long text is cut there.
   */
  private static EditorEvent parseEvent(JsonNode body) throws BadRequest {
    String type = requireText(body, "type");
    EditorEvent event;
    try {
      event = switch (type) {
        case "focus" -> new EditorEvent.FileFocused(absolutePath(body, "path"));
        case "close" -> new EditorEvent.FileClosed(absolutePath(body, "path"));
        case "delete" -> new EditorEvent.FileDeleted(absolutePath(body, "path"));
        case "rename" -> new EditorEvent.FileRenamed(absolutePath(body, "from"), absolutePath(body, "to"));
        case "cursor" -> new EditorEvent.CursorMoved(
            absolutePath(body, "path"), HttpBodies.position(body, "line"), HttpBodies.position(body, "character"));
        case "selection" -> new EditorEvent.SelectionChanged(
            absolutePath(body, "path"), requireString(body, "text"), body.has("range") ? range(body.get("range")) : null);
        case "diagnostics" -> new EditorEvent.DiagnosticsChanged(absolutePath(body, "path"), diagnostics(body));
        case "dirty" -> new EditorEvent.DirtyChanged(absolutePath(body, "path"), requireBoolean(body, "dirty"));
        case "trust" -> new EditorEvent.TrustChanged(requireBoolean(body, "trusted"));
        default -> throw new BadRequest("unknown event type '" + shown(type)
            + "'; expected focus, close, delete, rename, cursor, selection, diagnostics, dirty or trust");
      };
    } catch (IllegalArgumentException e) {
      throw new BadRequest(e.getMessage());
    }
    requireOnDisk(event);
    return event;
  }

  /** Focus, cursor and selection name a file the CLIs will read: a mistyped path is refused, not ignored. */
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

  /** {@code text} as an error message repeats it: a request's own text may be megabytes long. */
  private static String shown(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }

  private static boolean requireBoolean(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    if (value == null || !value.isBoolean()) {
      throw new BadRequest(field + " must be true or false");
    }
    return value.asBoolean();
  }

  private static List<Diagnostic> diagnostics(JsonNode body) throws BadRequest {
    JsonNode list = body.get("diagnostics");
    if (list == null || !list.isArray()) {
      throw new BadRequest("diagnostics must be an array (the file's whole list; [] clears it)");
    }
    if (list.size() > MAX_DIAGNOSTICS_PER_EVENT) {
      throw new BadRequest("at most " + MAX_DIAGNOSTICS_PER_EVENT + " diagnostics per file, got " + list.size());
    }
    List<Diagnostic> diagnostics = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String where = "diagnostics[" + i + "]";
      JsonNode d = list.get(i);
      if (!d.isObject()) {
        throw new BadRequest(where + " must be an object {range, severity, message, source?}");
      }
      JsonNode source = d.get("source");
      if (source != null && !source.isNull() && !source.isString()) {
        throw new BadRequest(where + ".source must be a string");
      }
      try {
        diagnostics.add(new Diagnostic(
            range(d.get("range")),
            Diagnostic.Severity.ofWireName(requireString(d, "severity")),
            requireText(d, "message"),
            source == null || source.isNull() ? null : source.asString()));
      } catch (BadRequest | IllegalArgumentException e) {
        throw new BadRequest(where + ": " + e.getMessage());
      }
    }
    return diagnostics;
  }

  private static TextRange range(JsonNode range) throws BadRequest {
    if (range == null || !range.isObject()) {
      throw new BadRequest("range must be {startLine, startCharacter, endLine, endCharacter}, 1-based");
    }
    try {
      return new TextRange(HttpBodies.position(range, "startLine"), HttpBodies.position(range, "startCharacter"),
          HttpBodies.position(range, "endLine"), HttpBodies.position(range, "endCharacter"));
    } catch (BadRequest | IllegalArgumentException e) {
      throw new BadRequest("range: " + e.getMessage());
    }
  }

  private static Path absolutePath(JsonNode body, String field) throws BadRequest {
    String text = requireText(body, field);
    Path path;
    try {
      path = Path.of(text);
    } catch (InvalidPathException e) {
      throw new BadRequest(field + " is not a valid path");
    }
    if (!path.isAbsolute()) {
      throw new BadRequest(field + " must be an absolute path, got " + shown(text));
    }
    return path.normalize();
  }

  private static String requireText(JsonNode body, String field) throws BadRequest {
    String value = requireString(body, field);
    if (value.isBlank()) {
      throw new BadRequest(field + " must not be empty");
    }
    return value;
  }

  private static String requireString(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    if (value == null || !value.isString()) {
      throw new BadRequest(field + " is required and must be a string");
    }
    return value.asString();
  }
}
