package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.DiagnosticsReport;
import dev.companion4j.engine.FileDiagnostics;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.OpenEditor;
import dev.companion4j.engine.OpenEditorsReport;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.io.WorkspacePaths;
import dev.companion4j.engine.internal.loop.EngineLoop;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

  private final transient Ide companion;

  /**
   * What the routes ask of the companion they serve; answered from memory except {@link #openFile}.
   */
  public interface Ide {
    IdeInfo ideInfo();

    Set<HostFeature> features();

    List<Path> workspaceRoots();

    /** The roots joined as the CLIs expect them, for messages. */
    String workspacePath();

    CompanionStatus status();

    List<OpenEditor> openEditors();

    List<FileDiagnostics> diagnostics();

    FileDiagnostics diagnostics(Path file);

    /**
     * Asks the host to show a file these routes checked (a regular file inside a root, links
     * resolved); completes with the host's sentence, or with its {@link HostActionException}.
     */
    CompletableFuture<String> openFile(Path checked, int line, int character);
  }

  public IdeRoutes(Ide companion) {
    this.companion = companion;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    switch (route(req)) {
      case "/status" -> HttpBodies.json(resp, 200, companion.status());
      case "/editors" ->
          HttpBodies.json(
              resp,
              200,
              new OpenEditorsReport(
                  companion.features().contains(HostFeature.DIRTY_STATE), companion.openEditors()));
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
    try {
      OpenRequest open = OpenRequest.of(JsonFields.parse(bytes));
      String message = openFile(open).get(OPEN_BOUND_SECONDS, TimeUnit.SECONDS);
      HttpBodies.json(resp, 200, Map.of("message", message));
    } catch (UnsupportedOperationException e) {
      HttpBodies.error(resp, 501, e.getMessage());
    } catch (BadRequest e) {
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
      HttpBodies.error(
          resp,
          504,
          companion.ideInfo().displayName()
              + " did not open the file within "
              + OPEN_BOUND_SECONDS
              + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      HttpBodies.error(resp, 503, "the companion is stopping");
    }
  }

  private void diagnostics(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!companion.features().contains(HostFeature.DIAGNOSTICS)) {
      HttpBodies.error(
          resp,
          501,
          companion.ideInfo().displayName()
              + " does not report diagnostics to the companion (an editor plugin with diagnostics support must send them)");
      return;
    }
    String path = req.getParameter("path");
    if (path == null) {
      HttpBodies.json(resp, 200, new DiagnosticsReport(companion.diagnostics()));
      return;
    }
    try {
      HttpBodies.json(
          resp,
          200,
          new DiagnosticsReport(
              List.of(companion.diagnostics(JsonFields.absolutePath("path", path)))));
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    }
  }

  /** The body of {@code POST /ide/open}; a position left out (or null) is 0, for none. */
  private record OpenRequest(String path, int line, int character) {
    static OpenRequest of(JsonNode body) throws BadRequest {
      if (body == null || !body.isObject() || !body.path("path").isString()) {
        throw new BadRequest(
            "expected {\"path\": \"/absolute/file\", \"line\": 12, \"character\": 5}; line and character may be left out");
      }
      return new OpenRequest(
          body.get("path").asString(),
          JsonFields.optionalPosition(body, "line"),
          JsonFields.optionalPosition(body, "character"));
    }
  }

  /**
   * Checks a request to show a file at once, then asks the host on the engine thread: the host must
   * offer {@link HostFeature#OPEN_FILE}, and the file must be a regular file inside a workspace
   * root, also once symlinks are resolved.
   *
   * @throws UnsupportedOperationException when the host cannot open files
   * @throws BadRequest when the file may not or cannot be opened, with the reason
   */
  private CompletableFuture<String> openFile(OpenRequest open) throws BadRequest {
    if (!companion.features().contains(HostFeature.OPEN_FILE)) {
      throw new UnsupportedOperationException(
          companion.ideInfo().displayName() + " cannot open files on request");
    }
    if (open.line() == 0 && open.character() > 0) {
      throw new BadRequest("a character needs a line, got 0:" + open.character());
    }
    return companion.openFile(checkedInWorkspace(open.path()), open.line(), open.character());
  }

  private Path checkedInWorkspace(String file) throws BadRequest {
    return checkedFile(
        JsonFields.absolutePath("path", file),
        companion.workspaceRoots(),
        companion.workspacePath());
  }

  /**
   * A file a request names, checked: a regular file inside a root, also once symlinks are resolved.
   *
   * @return the path as written, normalised
   * @throws BadRequest saying why it is refused
   */
  static Path checkedFile(Path path, List<Path> roots, String workspacePath) throws BadRequest {
    String file = path.toString();
    WorkspacePaths.Place place;
    try {
      place = WorkspacePaths.resolve(path, roots);
    } catch (WorkspacePaths.RefusedException e) {
      throw new BadRequest(
          switch (e.why()) {
            case OUTSIDE ->
                file
                    + " is outside the workspace ("
                    + workspacePath
                    + "); only files inside it are served";
            case LEADS_OUTSIDE ->
                file
                    + " leads outside the workspace through a symbolic link; only files inside it are served";
            case DANGLING_LINK ->
                "no such file: " + file + " passes through a symbolic link that leads nowhere";
            case AMBIGUOUS_DOT_DOT ->
                file
                    + " has '..' after a symbolic link, so it names another file than it reads as; give it without '..'";
            case UNRESOLVABLE ->
                "no such file: a part of " + file + " is not a folder, or may not be read";
          });
    }
    if (!place.exists()) {
      throw new BadRequest("no such file: " + file);
    }
    if (!Files.isRegularFile(place.real())) {
      throw new BadRequest("not a file: " + file);
    }
    return place.normal();
  }

  static String route(HttpServletRequest req) {
    return req.getPathInfo() == null ? "" : req.getPathInfo();
  }

  private static void notFound(HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    notFound(
        req, resp, "GET /ide/status, /ide/editors, /ide/diagnostics[?path=] and POST /ide/open");
  }

  /** The 404 of a route under {@code /ide/}, naming what the companion serves there instead. */
  static void notFound(HttpServletRequest req, HttpServletResponse resp, String served)
      throws IOException {
    HttpBodies.error(
        resp,
        404,
        "no route "
            + req.getMethod()
            + " "
            + req.getServletPath()
            + route(req)
            + "; the companion serves "
            + served);
  }
}
