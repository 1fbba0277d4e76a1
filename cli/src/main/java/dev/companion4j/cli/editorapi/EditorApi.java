package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.http.EventStreams;
import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
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
  private static final int MAX_BODY_BYTES = 1024 * 1024;
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
    String route = route(req);
    Matcher one = ONE_DIFF.matcher(route);
    switch (route) {
      case "/state" -> HttpBodies.json(resp, 200, EditorJson.State.of(companion.get()));
      case "/diffs" -> {
        Companion c = companion.get();
        var clients = c.clients();
        HttpBodies.json(resp, 200, c.pendingDiffs().stream().map(d -> EditorJson.Diff.of(d, clients)).toList());
      }
      case "/events/stream" -> events.subscribe(req, resp);
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
    String route = route(req);
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
        answer(diffId(answer.group(1)), answer.group(2).equals("accept"), req, resp);
      } else {
        companion.get().editorEvent(parseEvent(requireObject(readBody(req))));
        resp.setStatus(204);
      }
    } catch (HttpBodies.TooLargeException e) {
      HttpBodies.error(resp, 413, e.getMessage());
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    }
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
    var diff = c.pendingDiff(id);
    if (diff.isPresent()) {
      HttpBodies.json(resp, 200, EditorJson.Diff.of(diff.get(), c.clients()));
    } else {
      HttpBodies.error(resp, 404, "diff " + id + " is not pending");
    }
  }

  /** Answers diff {@code id}; only a 204 means the CLI will hear it. */
  private void answer(DiffId id, boolean accept, HttpServletRequest req, HttpServletResponse resp)
      throws IOException, BadRequest {
    JsonNode body = readBody(req);
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
    events.publish("clientConnected", null, EditorJson.Client.of(client));
  }

  @Override
  public void clientDisconnected(ConnectedClient client) {
    events.publish("clientDisconnected", null, EditorJson.Client.of(client));
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
    events.publish("context", CONTEXT_KEY, EditorJson.Context.of(context));
  }

  private static String route(HttpServletRequest req) {
    String info = req.getPathInfo();
    return info == null ? "" : info;
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    HttpBodies.error(resp, 404, "no editor API route " + req.getMethod() + " " + PATH + route(req));
  }

  private static DiffId diffId(String segment) throws BadRequest {
    if (!DiffId.isValid(segment)) {
      throw new BadRequest("malformed diff id '" + segment + "': a diff id is sixteen lowercase hex digits");
    }
    return new DiffId(segment);
  }

  /** The body as JSON, or null when it is empty. */
  private static JsonNode readBody(HttpServletRequest req) throws IOException, BadRequest {
    byte[] bytes = HttpBodies.read(req, MAX_BODY_BYTES);
    if (bytes.length == 0) {
      return null;
    }
    try {
      return HttpBodies.JSON.readTree(bytes);
    } catch (JacksonException e) {
      throw new BadRequest("the body is not valid JSON");
    }
  }

  private static JsonNode requireObject(JsonNode body) throws BadRequest {
    if (body == null || !body.isObject()) {
      throw new BadRequest("expected a JSON object");
    }
    return body;
  }

  private static EditorEvent parseEvent(JsonNode body) throws BadRequest {
    String type = requireText(body, "type");
    try {
      return switch (type) {
        case "focus" -> new EditorEvent.FileFocused(fileOnDisk(body));
        case "close" -> new EditorEvent.FileClosed(absolutePath(body, "path"));
        case "delete" -> new EditorEvent.FileDeleted(absolutePath(body, "path"));
        case "rename" -> new EditorEvent.FileRenamed(absolutePath(body, "from"), absolutePath(body, "to"));
        case "cursor" -> new EditorEvent.CursorMoved(fileOnDisk(body), position(body, "line"), position(body, "character"));
        case "selection" -> new EditorEvent.SelectionChanged(fileOnDisk(body), requireString(body, "text"));
        case "trust" -> {
          JsonNode trusted = body.get("trusted");
          if (trusted == null || !trusted.isBoolean()) {
            throw new BadRequest("trusted must be true or false");
          }
          yield new EditorEvent.TrustChanged(trusted.asBoolean());
        }
        default -> throw new BadRequest(
            "unknown event type '" + type + "'; expected focus, close, delete, rename, cursor, selection or trust");
      };
    } catch (IllegalArgumentException e) {
      throw new BadRequest(e.getMessage());
    }
  }

  private static Path fileOnDisk(JsonNode body) throws BadRequest {
    Path path = absolutePath(body, "path");
    if (!Files.isRegularFile(path)) {
      throw new BadRequest("not a file on disk: " + path);
    }
    return path;
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
      throw new BadRequest(field + " must be an absolute path, got " + text);
    }
    return path.normalize();
  }

  private static int position(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    if (value == null || !value.isIntegralNumber() || value.asLong() < 1 || value.asLong() > Integer.MAX_VALUE) {
      throw new BadRequest(field + " must be a whole number from 1 (positions are 1-based)");
    }
    return value.asInt();
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

  private static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }
}
