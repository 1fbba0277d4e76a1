package dev.companion4j.cli.daemonchat;

import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.engine.http.EventStreams;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The chat routes, behind the companion's token like the editor API: the review page reads the
 * conversation and its changes and sends prompts, cancels, mode and model switches and permission
 * answers here; it never talks to the daemon or the agent. {@code /chat} serves the daemon path,
 * {@code /chat/acp} the ACP path, with the same routes and JSON. Without its chat, a path's state
 * says it is not configured and the intents are refused. See docs/daemon-client.md and
 * docs/chat-acp.md.
 */
public final class ChatApi extends HttpServlet {
  private static final long serialVersionUID = 1L;
  public static final String PATH = "/chat";
  public static final String ACP_PATH = "/chat/acp";
  static final String NO_DAEMON =
      "no chat: the companion was started without a daemon"
          + " (serve --daemon URL, --daemon spawn, or $QWEN_IDE_DAEMON_URL)";
  static final String NO_AGENT =
      "no ACP chat: the companion was started without an agent (serve --agent qwen|gemini|COMMAND)";

  /** What the routes drive: the daemon's chat or an ACP agent's. */
  interface Backend {
    Map<String, Object> state();

    /** The sessions a user may attach to, most recent first. */
    List<Map<String, Object>> sessions() throws IOException;

    void prompt(String text);

    void cancel();

    void setModel(String modelId);

    void setMode(String modeId);

    /**
     * @return false when the request is no longer pending
     */
    boolean answer(String requestId, String optionId);

    /**
     * Answers the questions a permission request asks, one answer each, in order.
     *
     * @return false when the request is no longer pending
     */
    default boolean answerQuestions(String requestId, List<String> answers) {
      throw new IllegalArgumentException("this chat has no questions to answer");
    }

    /** A new session; for the daemon also a reconnect. */
    void newSession();

    void attach(String sessionId);

    /** The sentence for {@code e} when the daemon or agent refused, else null. */
    String refusal(RuntimeException e);
  }

  private static final int MAX_BODY_BYTES = 1024 * 1024;

  /** Only the newest conversation matters to a subscriber that fell behind. */
  private static final String CONVERSATION_KEY = "conversation";

  private static final Pattern ANSWER = Pattern.compile("/permissions/([A-Za-z0-9_.:-]{1,200})");

  private final transient AtomicReference<Backend> chat = new AtomicReference<>();
  private final transient EventStreams events = new EventStreams();
  private final String path;
  private final String unconfigured;

  private ChatApi(String path, String unconfigured) {
    this.path = path;
    this.unconfigured = unconfigured;
  }

  /** The daemon path's routes, at {@link #PATH}. */
  public static ChatApi daemonPath() {
    return new ChatApi(PATH, NO_DAEMON);
  }

  /** The ACP path's routes, at {@link #ACP_PATH}. */
  public static ChatApi acpPath() {
    return new ChatApi(ACP_PATH, NO_AGENT);
  }

  public String pathSpec() {
    return path + "/*";
  }

  /** Serves {@code target}; call before the companion starts. */
  public void attach(DaemonChat target) {
    chat.set(new DaemonBackend(target));
  }

  /** Serves {@code target}; call before the companion starts. */
  public void attach(AcpChat target) {
    chat.set(target);
  }

  /** What the daemon chat's listener calls with each change: every subscriber gets it. */
  public void publish(DaemonChat.Status status) {
    publish(ChatJson.status(status));
  }

  void publish(Map<String, Object> state) {
    events.publish("chat", CONVERSATION_KEY, state);
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
              chat.get() == null ? ChatJson.unconfigured(unconfigured) : chat.get().state());
      case "/sessions" -> sessions(resp);
      case "/events/stream" -> events.subscribe(req, resp);
      default ->
          HttpBodies.error(
              resp,
              404,
              "no route GET "
                  + path
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
      Backend c = configured();
      switch (route) {
        case "/prompt" -> c.prompt(text(body, "text"));
        case "/cancel" -> c.cancel();
        case "/model" -> c.setModel(text(body, "modelId"));
        case "/mode" -> c.setMode(text(body, "modeId"));
        case "/reconnect", "/new" -> c.newSession();
        case "/attach" -> c.attach(text(body, "sessionId"));
        default -> {
          if (!answer.matches()) {
            HttpBodies.error(
                resp,
                404,
                "no route POST "
                    + path
                    + route
                    + "; the chat serves POST /prompt, /cancel, /model, /mode, /new, /attach, /reconnect and /permissions/{requestId}");
            return;
          }
          boolean pending =
              body != null && body.has("answers")
                  ? c.answerQuestions(answer.group(1), texts(body, "answers"))
                  : c.answer(answer.group(1), text(body, "optionId"));
          if (!pending) {
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
    } catch (RuntimeException e) {
      refused(resp, e);
    }
  }

  private void sessions(HttpServletResponse resp) throws IOException {
    try {
      HttpBodies.json(resp, 200, configured().sessions());
    } catch (IOException | IllegalStateException e) {
      HttpBodies.error(resp, 409, e.getMessage());
    } catch (RuntimeException e) {
      refused(resp, e);
    }
  }

  /** A refusal of the daemon or agent is a 502 saying so; anything else is a bug, passed on. */
  private void refused(HttpServletResponse resp, RuntimeException e) throws IOException {
    String why = chat.get() == null ? null : chat.get().refusal(e);
    if (why == null) {
      throw e;
    }
    HttpBodies.error(resp, 502, why);
  }

  /**
   * The chat these routes serve.
   *
   * @throws IllegalStateException when the companion has none
   */
  private Backend configured() {
    Backend c = chat.get();
    if (c == null) {
      throw new IllegalStateException(unconfigured);
    }
    return c;
  }

  private static List<String> texts(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    List<String> texts = new ArrayList<>();
    for (JsonNode t : value) {
      texts.add(t.isString() ? t.asString() : null);
    }
    if (!value.isArray() || texts.contains(null)) {
      throw new BadRequest("\"" + field + "\" must be an array of strings");
    }
    return texts;
  }

  private static String text(JsonNode body, String field) throws BadRequest {
    JsonNode value = body == null ? null : body.get(field);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw new BadRequest("the body needs \"" + field + "\", a non-empty string");
    }
    return value.asString();
  }
}
