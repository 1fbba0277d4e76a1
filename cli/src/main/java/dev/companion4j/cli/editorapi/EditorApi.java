package dev.companion4j.cli.editorapi;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.internal.server.HttpBodies;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The editor API at {@code /editor}: any editor (a Vim autocmd with curl, an Emacs hook, the
 * review page) feeds events, lists and answers diffs, and follows an event stream. It sits behind
 * the companion's token and Host checks; see docs/editor-api.md.
 */
public final class EditorApi extends HttpServlet implements CompanionListener {
  private static final long serialVersionUID = 1L;
  /** The mount point under which {@link #pathSpec()} serves. */
  public static final String PATH = "/editor";
  private static final int MAX_EVENT_BYTES = 1024 * 1024;

  private final AtomicReference<Companion> companion = new AtomicReference<>();
  private final transient EventStream stream = new EventStream();
  private final transient ScheduledExecutorService heartbeat =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "companion4j-editor-heartbeat");
        t.setDaemon(true);
        return t;
      });

  public static String pathSpec() {
    return PATH + "/*";
  }

  /** Binds the API to the companion it serves; call before the companion starts. */
  public void attach(Companion target) {
    companion.set(target);
    target.addListener(this);
    heartbeat.scheduleWithFixedDelay(stream::heartbeat, 15, 15, TimeUnit.SECONDS);
  }

  /** Ends every event stream, e.g. before the companion stops. */
  public void shutdown() {
    heartbeat.shutdownNow();
    stream.closeAll();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    switch (route(req)) {
      case "/state" -> HttpBodies.json(resp, 200, EditorJson.state(companion.get()));
      case "/diffs" -> HttpBodies.json(resp, 200, companion.get().pendingDiffs().stream().map(EditorJson::diff).toList());
      case "/events/stream" -> stream.subscribe(req, resp);
      default -> notFound(req, resp);
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String route = route(req);
    if (!route.equals("/events") && !route.equals("/diffs/accept") && !route.equals("/diffs/reject")) {
      notFound(req, resp);
      return;
    }
    JsonNode body;
    try {
      body = HttpBodies.JSON.readTree(HttpBodies.read(req, MAX_EVENT_BYTES));
    } catch (HttpBodies.TooLargeException e) {
      HttpBodies.error(resp, 413, e.getMessage());
      return;
    } catch (JacksonException e) {
      HttpBodies.error(resp, 400, "the body is not valid JSON");
      return;
    }
    if (body == null || !body.isObject()) {
      HttpBodies.error(resp, 400, "expected a JSON object");
      return;
    }
    try {
      switch (route) {
        case "/events" -> companion.get().editorEvent(parseEvent(body));
        case "/diffs/accept" -> {
          String filePath = requireText(body, "filePath");
          JsonNode content = body.get("content");
          if (content != null && !content.isNull() && !content.isString()) {
            throw new BadRequest("content must be a string");
          }
          String text = content == null || content.isNull() ? null : content.asString();
          if (!companion.get().acceptDiff(filePath, text)) {
            HttpBodies.error(resp, 404, "no pending diff for " + filePath);
            return;
          }
        }
        default -> {
          String filePath = requireText(body, "filePath");
          if (!companion.get().rejectDiff(filePath)) {
            HttpBodies.error(resp, 404, "no pending diff for " + filePath);
            return;
          }
        }
      }
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
      return;
    }
    resp.setStatus(204);
  }

  @Override
  public void clientConnected(ConnectedClient client) {
    stream.publish("clientConnected", EditorJson.client(client));
  }

  @Override
  public void clientDisconnected(ConnectedClient client) {
    stream.publish("clientDisconnected", EditorJson.client(client));
  }

  @Override
  public void diffOpened(PendingDiff diff) {
    stream.publish("diffOpened", EditorJson.diff(diff));
  }

  @Override
  public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
    stream.publish("diffClosed", EditorJson.closed(diff, outcome));
  }

  @Override
  public void contextSent(IdeContext context) {
    stream.publish("context", context.toNotificationParams());
  }

  private static String route(HttpServletRequest req) {
    String info = req.getPathInfo();
    return info == null ? "" : info;
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    HttpBodies.error(resp, 404, "no editor API route " + req.getMethod() + " " + PATH + route(req));
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
