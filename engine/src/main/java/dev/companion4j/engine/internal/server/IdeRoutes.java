package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiagnosticsReport;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.OpenEditorsReport;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.loop.EngineLoop;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The companion's own routes under {@code /ide/}, for the user's tools (the extension's MCP
 * server): status, open editors, diagnostics, and opening a file. All answer from memory except
 * {@code open}, which waits for the host a few seconds at most. Runs on Jetty's threads.
 */
public final class IdeRoutes extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger log = LoggerFactory.getLogger(IdeRoutes.class);
  public static final String PATH_SPEC = "/ide/*";
  private static final int MAX_BODY_BYTES = 64 * 1024;
  private static final long OPEN_BOUND_SECONDS = EngineLoop.HOST_ANSWER_BOUND.toSeconds();

  private final transient Companion companion;

  public IdeRoutes(Companion companion) {
    this.companion = companion;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    switch (route(req)) {
      case "/status" -> HttpBodies.json(resp, 200, companion.status());
      case "/editors" -> HttpBodies.json(resp, 200,
          new OpenEditorsReport(companion.features().contains(HostFeature.DIRTY_STATE), companion.openEditors()));
      case "/diagnostics" -> diagnostics(req, resp);
      case "/open" -> HttpBodies.error(resp, 405, "POST /ide/open with {path, line?, character?}");
      default -> notFound(req, resp);
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    byte[] bytes = HttpBodies.readFirst(req, resp, MAX_BODY_BYTES);
    if (bytes == null) {
      return;
    }
    if (!route(req).equals("/open")) {
      if (List.of("/status", "/editors", "/diagnostics").contains(route(req))) {
        HttpBodies.error(resp, 405, "GET /ide" + route(req) + " only");
      } else {
        notFound(req, resp);
      }
      return;
    }
    JsonNode body;
    try {
      body = HttpBodies.JSON.readTree(bytes);
    } catch (JacksonException e) {
      HttpBodies.error(resp, 400, "the body is not valid JSON");
      return;
    }
    if (body == null || !body.isObject() || !body.path("path").isString()) {
      HttpBodies.error(resp, 400, "expected {\"path\": \"/absolute/file\", \"line\": 12, \"character\": 5}; line and character may be left out");
      return;
    }
    try {
      int line = position(body, "line");
      int character = position(body, "character");
      String message = companion.openFile(body.get("path").asString(), line, character).get(OPEN_BOUND_SECONDS, TimeUnit.SECONDS);
      HttpBodies.json(resp, 200, Map.of("message", message));
    } catch (UnsupportedOperationException e) {
      HttpBodies.error(resp, 501, e.getMessage());
    } catch (IllegalArgumentException | HttpBodies.BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    } catch (ExecutionException e) {
      String why;
      if (e.getCause() instanceof HostActionException refused) {
        why = refused.getMessage();
      } else {
        // The host's exception is for its log, not for the model that asked.
        log.warn("{} failed to open a file", companion.ideInfo().displayName(), e.getCause());
        why = companion.ideInfo().displayName() + " failed to open the file; its log says why";
      }
      HttpBodies.error(resp, 503, why);
    } catch (TimeoutException e) {
      HttpBodies.error(resp, 504, companion.ideInfo().displayName() + " did not open the file within " + OPEN_BOUND_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      HttpBodies.error(resp, 503, "the companion is stopping");
    }
  }

  private void diagnostics(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!companion.features().contains(HostFeature.DIAGNOSTICS)) {
      HttpBodies.error(resp, 501, companion.ideInfo().displayName()
          + " does not report diagnostics to the companion (an editor plugin with diagnostics support must send them)");
      return;
    }
    String path = req.getParameter("path");
    if (path == null) {
      HttpBodies.json(resp, 200, new DiagnosticsReport(companion.diagnostics()));
      return;
    }
    try {
      Path file = Path.of(path);
      if (!file.isAbsolute()) {
        HttpBodies.error(resp, 400, "path must be absolute: " + path);
        return;
      }
      HttpBodies.json(resp, 200, new DiagnosticsReport(List.of(companion.diagnostics(file))));
    } catch (InvalidPathException e) {
      HttpBodies.error(resp, 400, "not a valid path: " + path);
    }
  }

  /** A position left out (or null) is 0, for none. */
  private static int position(JsonNode body, String field) throws HttpBodies.BadRequest {
    JsonNode value = body.get(field);
    return value == null || value.isNull() ? 0 : HttpBodies.position(body, field);
  }

  private static String route(HttpServletRequest req) {
    return req.getPathInfo() == null ? "" : req.getPathInfo();
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    HttpBodies.error(resp, 404, "no route " + req.getMethod() + " /ide" + route(req)
        + "; the companion serves GET /ide/status, /ide/editors, /ide/diagnostics[?path=] and POST /ide/open");
  }
}
