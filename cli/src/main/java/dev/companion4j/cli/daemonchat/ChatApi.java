package dev.companion4j.cli.daemonchat;

import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.engine.http.EventStreams;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The chat routes at {@code /chat}, behind the companion's token like the editor API: the review
 * page reads the conversation and its changes and sends prompts, cancels, model switches and
 * permission answers here; it never talks to the daemon. Without a daemon the state says the chat
 * is not configured and the intents are refused. See docs/daemon-client.md.
 */
public final class ChatApi extends HttpServlet {
  private static final long serialVersionUID = 1L;
  public static final String PATH = "/chat";
  static final String NO_DAEMON =
      "no chat: the companion was started without a daemon"
          + " (serve --daemon URL, --daemon spawn, or $QWEN_IDE_DAEMON_URL)";
  private static final int MAX_BODY_BYTES = 1024 * 1024;

  /** Only the newest conversation matters to a subscriber that fell behind. */
  private static final String CONVERSATION_KEY = "conversation";

  private static final Pattern ANSWER = Pattern.compile("/permissions/([A-Za-z0-9_.:-]{1,200})");

  private final transient AtomicReference<DaemonChat> chat = new AtomicReference<>();
  private final transient EventStreams events = new EventStreams();

  public static String pathSpec() {
    return PATH + "/*";
  }

  /** Serves {@code target}; call before the companion starts. */
  public void attach(DaemonChat target) {
    chat.set(target);
  }

  /** What the chat's listener calls with each change: every subscriber gets it. */
  public void publish(DaemonChat.Status status) {
    events.publish("chat", CONVERSATION_KEY, ChatJson.status(status));
  }

  /** Ends every event stream, e.g. before the companion stops. */
  public void shutdown() {
    events.close();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    switch (HttpBodies.route(req)) {
      case "/state" ->
          HttpBodies.json(
              resp,
              200,
              chat.get() == null ? ChatJson.unconfigured() : ChatJson.status(chat.get().status()));
      case "/sessions" -> sessions(resp);
      case "/events/stream" -> events.subscribe(req, resp);
      default ->
          HttpBodies.error(
              resp,
              404,
              "no route GET "
                  + PATH
                  + HttpBodies.route(req)
                  + "; the chat serves GET /state, /sessions and /events/stream");
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
    try {
      JsonNode body = JsonFields.parse(bytes);
      DaemonChat c = configured();
      switch (route) {
        case "/prompt" -> c.connection().prompt(text(body, "text"));
        case "/cancel" -> c.connection().cancel();
        case "/model" -> c.connection().setModel(text(body, "modelId"));
        case "/reconnect", "/new" -> c.connect();
        case "/attach" -> c.attach(text(body, "sessionId"));
        default -> {
          if (!answer.matches()) {
            HttpBodies.error(
                resp,
                404,
                "no route POST "
                    + PATH
                    + route
                    + "; the chat serves POST /prompt, /cancel, /model, /new, /attach, /reconnect and /permissions/{requestId}");
            return;
          }
          if (!c.connection().answer(answer.group(1), text(body, "optionId"))) {
            HttpBodies.error(
                resp,
                409,
                "permission request "
                    + answer.group(1)
                    + " is no longer pending: it was answered or ended elsewhere");
            return;
          }
        }
      }
      resp.setStatus(204);
    } catch (BadRequest e) {
      HttpBodies.error(resp, 400, e.getMessage());
    } catch (IllegalStateException e) {
      HttpBodies.error(resp, 409, e.getMessage());
    } catch (IllegalArgumentException e) {
      HttpBodies.error(resp, 400, e.getMessage());
    } catch (DaemonException e) {
      HttpBodies.error(resp, 502, "the daemon refused: " + e.getMessage());
    }
  }

  private void sessions(HttpServletResponse resp) throws IOException {
    try {
      HttpBodies.json(resp, 200, configured().sessions().stream().map(ChatJson::session).toList());
    } catch (IOException | IllegalStateException e) {
      HttpBodies.error(resp, 409, e.getMessage());
    } catch (DaemonException e) {
      HttpBodies.error(resp, 502, "the daemon refused: " + e.getMessage());
    }
  }

  /**
   * The chat these routes serve.
   *
   * @throws IllegalStateException when the companion has none
   */
  private DaemonChat configured() {
    DaemonChat c = chat.get();
    if (c == null) {
      throw new IllegalStateException(NO_DAEMON);
    }
    return c;
  }

  private static String text(JsonNode body, String field) throws BadRequest {
    JsonNode value = body == null ? null : body.get(field);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw new BadRequest("the body needs \"" + field + "\", a non-empty string");
    }
    return value.asString();
  }
}
