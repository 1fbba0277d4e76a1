package dev.companion4j.eclipse.chat;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.acp.AcpException;
import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.acp.ReviewedFiles;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.eclipse.Activator;
import dev.companion4j.engine.Companion;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The chat with an ACP agent the IDE starts itself in the first open project: its reads and writes
 * go through the editors ({@link EditorFiles}), its writes to the compare editor for review (the
 * companion's proposal, as a CLI's). Opened and closed on {@link ChatService}'s thread; the agent's
 * own threads publish.
 */
final class AgentChat implements AutoCloseable {
  private final AcpAgent agent;
  private final List<Path> roots;
  private final Consumer<ChatView> publish;
  private final String name;

  private volatile AcpIdeConnection connection;
  private volatile String problem = "";

  /** Set once closed, so that what the agent says while it stops is not shown. */
  private volatile boolean closed;

  /**
   * @param roots the folders the agent's file calls may touch; the first is its session's folder
   */
  AgentChat(AcpAgent agent, List<Path> roots, Consumer<ChatView> publish) {
    this.agent = agent;
    this.roots = List.copyOf(roots);
    this.publish = publish;
    this.name = Path.of(agent.command().get(0)).getFileName().toString();
  }

  /** Starts the agent and a new session, closing one open before; slow (the agent's start). */
  void connect() {
    close();
    closed = false;
    problem = "";
    publish.accept(view());
    try {
      connection = open(null);
    } catch (AcpException | IllegalArgumentException | UncheckedIOException e) {
      problem = e.getMessage();
    }
    publish.accept(view());
  }

  /**
   * Loads an earlier session in a new agent, its history replayed; the session shown goes on until
   * that worked, so a refused id loses nothing. Slow (the agent's start).
   *
   * @throws AcpException when the agent cannot load it
   */
  void attach(String sessionId) {
    AcpIdeConnection opened = open(sessionId);
    AcpIdeConnection old = connection;
    connection = opened;
    problem = "";
    if (old != null) {
      old.close();
    }
    publish.accept(view());
  }

  /**
   * The agent's earlier sessions in the project, most recent first.
   *
   * @throws IllegalStateException saying why when there is no session or the agent lists none
   */
  List<SessionSummary> sessions() {
    return connection().sessions();
  }

  private AcpIdeConnection open(String loadSessionId) {
    AcpIdeConnection.Setup setup =
        new AcpIdeConnection.Setup(
            roots,
            new ReviewedFiles(new EditorFiles(), Activator::companion, name + " chat", this::mode),
            ideTools(),
            null,
            null,
            "default");
    // The connection's libraries look services up through the context class loader; its threads
    // inherit it from here, and must see this bundle's lib/.
    Thread current = Thread.currentThread();
    ClassLoader previous = current.getContextClassLoader();
    current.setContextClassLoader(AgentChat.class.getClassLoader());
    try {
      return AcpIdeConnection.open(
          agent,
          loadSessionId == null ? setup : setup.loading(loadSessionId),
          AcpIdeConnection.Listener.onEachChange(this::shown));
    } finally {
      current.setContextClassLoader(previous);
    }
  }

  /** The companion's IDE tools, as a CLI in IDE mode has them; none while it is stopped. */
  private static List<AcpIdeConnection.HttpMcpServer> ideTools() {
    Companion companion = Activator.companion();
    return companion == null || !companion.isRunning()
        ? List.of()
        : List.of(
            new AcpIdeConnection.HttpMcpServer(
                IdeToolsRoute.NAME,
                IdeToolsRoute.url(companion.port()),
                IdeToolsRoute.headers(companion.authToken())));
  }

  private void shown() {
    if (!closed) {
      publish.accept(view());
    }
  }

  /** The session's mode now; empty, so that a write asks, before there is a session. */
  private String mode() {
    AcpIdeConnection c = connection;
    return c == null ? "" : c.conversation().approvalMode();
  }

  /**
   * The open connection.
   *
   * @throws IllegalStateException saying why there is none
   */
  AcpIdeConnection connection() {
    AcpIdeConnection c = connection;
    if (c == null) {
      throw new IllegalStateException(
          "the agent has no session" + (problem.isEmpty() ? " yet" : ": " + problem));
    }
    return c;
  }

  void setMode(String modeId) {
    connection().setMode(modeId);
    publish.accept(view());
  }

  ChatView view() {
    AcpIdeConnection c = connection;
    Conversation conversation = c == null ? null : c.conversation();
    DaemonChat.Status status =
        new DaemonChat.Status(
            "",
            roots.get(0).toString(),
            c == null ? "" : c.sessionId(),
            problem,
            c == null ? List.of() : c.models().stream().map(AcpIdeConnection.Model::id).toList(),
            Optional.ofNullable(conversation));
    return new ChatView(
        status, name, c == null ? List.of() : c.modes(), c == null ? List.of() : c.commands());
  }

  /** Stops the agent (its whole process tree); the session ends. */
  @Override
  public void close() {
    closed = true;
    AcpIdeConnection c = connection;
    connection = null;
    if (c != null) {
      c.close();
    }
  }
}
