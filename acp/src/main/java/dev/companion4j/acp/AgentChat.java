package dev.companion4j.acp;

import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.engine.Companion;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * An IDE's chat with an ACP agent it starts itself: the agent's reads and writes go through the
 * editor's files, its writes to the editor's review as the companion's proposals (as a CLI's), and
 * it gets the companion's IDE tools. What it shows goes to {@code publish} as a {@link ChatView}.
 * Opened and closed on the IDE's chat thread (never its UI thread: an agent's start is slow); the
 * agent's own threads publish.
 */
public final class AgentChat implements AutoCloseable {
  private final AcpAgent agent;
  private final List<Path> roots;
  private final WorkspaceFiles editor;
  private final Supplier<Companion> companion;
  private final Supplier<List<AcpIdeConnection.HttpMcpServer>> ideTools;
  private final Consumer<ChatView> publish;
  private final String name;

  private volatile AcpIdeConnection connection;
  private volatile String problem = "";

  /** Set once closed, so that what the agent says while it stops is not shown. */
  private volatile boolean closed;

  /**
   * @param roots the folders the agent's file calls may touch; the first is its session's folder
   * @param editor the editor's files: open buffers first, unsaved text included
   * @param companion the companion whose review the agent's writes go to; {@code null} while none
   *     runs
   * @param ideTools the companion's IDE tools for {@code session/new}; empty while none runs
   * @param publish takes what the chat shows, on the thread that changed it
   */
  public AgentChat(
      AcpAgent agent,
      List<Path> roots,
      WorkspaceFiles editor,
      Supplier<Companion> companion,
      Supplier<List<AcpIdeConnection.HttpMcpServer>> ideTools,
      Consumer<ChatView> publish) {
    this.agent = agent;
    this.roots = List.copyOf(roots);
    this.editor = editor;
    this.companion = companion;
    this.ideTools = ideTools;
    this.publish = publish;
    this.name = Path.of(agent.command().get(0)).getFileName().toString();
  }

  /** Starts the agent and a new session, closing one open before; slow (the agent's start). */
  public void connect() {
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
  public void attach(String sessionId) {
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
   * The agent's earlier sessions in its session's folder, most recent first.
   *
   * @throws IllegalStateException saying why when there is no session or the agent lists none
   */
  public List<SessionSummary> sessions() {
    return connection().sessions();
  }

  /** Starts the agent with a new session, or the earlier one {@code loadSessionId} loads. */
  private AcpIdeConnection open(String loadSessionId) {
    AcpIdeConnection.Setup setup =
        new AcpIdeConnection.Setup(
            roots,
            new ReviewedFiles(editor, companion, name + " chat", this::mode),
            ideTools.get(),
            null,
            null,
            "default");
    // Libraries of the connection may look up services through the context class loader; on its
    // threads, which inherit it from here, that must be the loader of these classes (the IDE
    // module's or bundle's).
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
  public AcpIdeConnection connection() {
    AcpIdeConnection c = connection;
    if (c == null) {
      throw new IllegalStateException(
          "the agent has no session" + (problem.isEmpty() ? " yet" : ": " + problem));
    }
    return c;
  }

  /** Switches to one of the agent's modes, which the chat's selector lists. */
  public void setMode(String modeId) {
    connection().setMode(modeId);
    publish.accept(view());
  }

  /** What the chat shows now. */
  public ChatView view() {
    AcpIdeConnection c = connection;
    // Shown once the session is ready for prompts: while it opens, the chat says it connects.
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
