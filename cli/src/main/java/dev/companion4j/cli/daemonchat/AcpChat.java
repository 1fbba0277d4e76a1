package dev.companion4j.cli.daemonchat;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.acp.AcpException;
import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.acp.ReviewedFiles;
import dev.companion4j.acp.WorkspaceFiles;
import dev.companion4j.cli.editorapi.UnsavedFirst;
import dev.companion4j.engine.Companion;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The chat with an ACP agent the companion starts itself, behind the {@link ChatApi#acpPath()}
 * routes: the agent's writes become pending diffs the user reviews (see {@link ReviewedFiles}). The
 * page learns the agent's program name only: never its arguments nor its environment.
 */
public final class AcpChat implements ChatApi.Backend, AutoCloseable {
  private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9_.-]{1,200}");

  private final AcpAgent agent;
  private final List<Path> roots;
  private final ChatApi api;
  private final String name;

  // Guarded by this.
  private AcpIdeConnection connection;
  private Companion companion;

  private volatile String problem = "";

  /**
   * @param roots the folders the agent's file calls may touch; the first is its session's folder
   */
  public AcpChat(AcpAgent agent, List<Path> roots, ChatApi api) {
    this.agent = agent;
    this.roots = List.copyOf(roots);
    this.api = api;
    this.name = Path.of(agent.command().get(0)).getFileName().toString();
    api.attach(this);
  }

  /**
   * Starts the agent and a new session whose writes {@code companion} reviews; slow (the agent's
   * start), so callers run it on a thread of their own. What fails is the state's problem.
   */
  public void connect(Companion companion) {
    synchronized (this) {
      this.companion = Objects.requireNonNull(companion, "companion");
    }
    restart();
  }

  /** A new session in a new agent, the old one stopped first; what fails is the problem. */
  private void restart() {
    AcpIdeConnection old;
    synchronized (this) {
      old = connection;
      connection = null;
    }
    if (old != null) {
      old.close();
    }
    problem = "";
    try {
      AcpIdeConnection opened = open(null);
      synchronized (this) {
        connection = opened;
      }
    } catch (AcpException | IllegalArgumentException | UncheckedIOException e) {
      problem = e.getMessage();
    }
    api.publish(state());
  }

  /** Starts the agent with a new session, or the earlier one {@code loadSessionId} loads. */
  private AcpIdeConnection open(String loadSessionId) {
    Companion reviewer;
    synchronized (this) {
      reviewer = companion;
    }
    if (reviewer == null) {
      throw new IllegalStateException("the ACP chat has not started yet");
    }
    AcpIdeConnection.Setup setup =
        new AcpIdeConnection.Setup(
            roots,
            new ReviewedFiles(
                new UnsavedFirst(reviewer, WorkspaceFiles.disk()),
                () -> reviewer,
                name + " chat",
                this::mode),
            // The companion's IDE tools, as a CLI in IDE mode has them through the extension.
            List.of(IdeToolsRoute.forAgent(reviewer.port(), reviewer.authToken())),
            null,
            null,
            "default");
    return AcpIdeConnection.open(
        agent,
        loadSessionId == null ? setup : setup.loading(loadSessionId),
        AcpIdeConnection.Listener.onEachChange(() -> api.publish(state())));
  }

  /** The session's mode now; empty, so the write asks, before there is a session. */
  private String mode() {
    AcpIdeConnection c = current();
    return c == null ? "" : c.conversation().approvalMode();
  }

  private synchronized AcpIdeConnection current() {
    return connection;
  }

  private AcpIdeConnection connection() {
    AcpIdeConnection c = current();
    if (c == null) {
      throw new IllegalStateException(
          "the agent has no session" + (problem.isEmpty() ? " yet" : ": " + problem));
    }
    return c;
  }

  @Override
  public Map<String, Object> state() {
    AcpIdeConnection c = current();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("configured", true);
    json.put("path", "acp");
    json.put("agent", name);
    json.put("workspace", roots.get(0).toString());
    json.put("sessionId", c == null ? "" : c.sessionId());
    json.put("problem", problem);
    json.put(
        "models",
        c == null ? List.of() : c.models().stream().map(AcpIdeConnection.Model::id).toList());
    json.put(
        "modes",
        c == null
            ? List.of()
            : c.modes().stream()
                .map(m -> Map.of("id", m.id(), "name", m.name(), "description", m.description()))
                .toList());
    json.put(
        "commands",
        c == null
            ? List.of()
            : c.commands().stream()
                .map(
                    k -> Map.of("name", k.name(), "description", k.description(), "hint", k.hint()))
                .toList());
    // Shown once the session is ready for prompts: while it opens, the page says it connects.
    json.put("conversation", c == null ? null : ChatJson.conversation(c.conversation()));
    return json;
  }

  /**
   * The agent's earlier sessions in the workspace ({@code session/list}).
   *
   * @throws IllegalStateException saying why when there is no session or the agent lists none
   */
  @Override
  public List<Map<String, Object>> sessions() {
    return connection().sessions().stream().map(ChatJson::session).toList();
  }

  @Override
  public void prompt(String text) {
    connection().prompt(text);
  }

  @Override
  public void cancel() {
    connection().cancel();
  }

  @Override
  public void setModel(String modelId) {
    connection().setModel(modelId);
  }

  @Override
  public void setMode(String modeId) {
    AcpIdeConnection c = connection();
    if (c.modes().stream().noneMatch(m -> m.id().equals(modeId))) {
      throw new IllegalArgumentException(
          "the agent offers no mode "
              + modeId
              + "; it offers "
              + c.modes().stream().map(AcpIdeConnection.Mode::id).toList());
    }
    c.setMode(modeId);
  }

  @Override
  public boolean answer(String requestId, String optionId) {
    return connection().answer(requestId, optionId);
  }

  @Override
  public boolean answerQuestions(String requestId, List<String> answers) {
    return connection().answerQuestions(requestId, answers);
  }

  @Override
  public void newSession() {
    restart();
  }

  /**
   * Loads an earlier session in a new agent, its history replayed; the session shown goes on until
   * that worked, so a refused id loses nothing.
   *
   * @throws IllegalArgumentException for an id that is no session id
   * @throws AcpException when the agent cannot load it
   */
  @Override
  public void attach(String sessionId) {
    if (!SESSION_ID.matcher(sessionId).matches()) {
      throw new IllegalArgumentException(
          "not a session id: letters, digits, '-', '_' and '.', at most 200 of them");
    }
    AcpIdeConnection opened = open(sessionId);
    AcpIdeConnection old;
    synchronized (this) {
      old = connection;
      connection = opened;
    }
    problem = "";
    if (old != null) {
      old.close();
    }
    api.publish(state());
  }

  @Override
  public String refusal(RuntimeException e) {
    return e instanceof AcpException ? "the agent refused: " + e.getMessage() : null;
  }

  @Override
  public void close() {
    AcpIdeConnection c;
    synchronized (this) {
      c = connection;
      connection = null;
    }
    if (c != null) {
      c.close();
    }
  }
}
