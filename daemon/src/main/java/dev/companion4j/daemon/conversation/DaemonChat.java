package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.Capabilities;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.SessionSummary;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An editor's chat with a {@code qwen serve} daemon, behind the review page's panel and the
 * NetBeans chat window alike: it owns the daemon client and the connection to one session, and
 * tells a listener each new status. The daemon's address and token stay here: a status names the
 * daemon by host and port, and carries nothing of the daemon's with the token in it.
 *
 * <p>Thread-safe. The listener runs on the connection's own thread ({@link DaemonIdeConnection}).
 */
public final class DaemonChat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DaemonChat.class);

  private final DaemonSource source;
  private final List<String> roots;
  private final Consumer<Status> listener;

  // Guarded by this.
  private DaemonIdeConnection connection;
  private DaemonClient client;
  private List<String> models = List.of();
  private String problem = "";
  private boolean closed;

  /**
   * What a chat view shows.
   *
   * @param daemon where the daemon runs, as {@code host:port}: never its whole address
   * @param workspace the session's workspace on the daemon's host, or empty without a session
   * @param sessionId the session's id on the daemon, or empty without a session
   * @param problem why there is no session, or empty
   * @param models the models the daemon offers
   * @param conversation the session's conversation, when there is one
   */
  public record Status(
      String daemon,
      String workspace,
      String sessionId,
      String problem,
      List<String> models,
      Optional<Conversation> conversation) {
    public Status {
      models = List.copyOf(models);
    }
  }

  /**
   * @param roots the editor's workspace roots; the chat runs in the one the daemon serves
   * @param listener hears every change, on the connection's thread or the caller's
   */
  public DaemonChat(DaemonSource source, List<String> roots, Consumer<Status> listener) {
    this.source = source;
    this.roots = List.copyOf(roots);
    this.listener = listener;
  }

  /**
   * Starts a new session in the daemon's workspace, once the daemon says it serves one of the
   * editor's roots; what fails is kept as the status's problem.
   */
  public void connect() {
    follow(
        (client, workspace) ->
            DaemonIdeConnection.open(
                client, SessionOptions.forWorkspace(workspace).asNewThread(), this::changed));
  }

  /**
   * Joins the live session {@code sessionId} of the daemon's workspace, e.g. one started in a
   * terminal or a browser; its history replays into the conversation.
   */
  public void attach(String sessionId) {
    follow((client, workspace) -> DaemonIdeConnection.attach(client, sessionId, this::changed));
  }

  /** On the connection's thread: its conversation is part of the status. */
  private void changed(Conversation conversation) {
    listener.accept(status());
  }

  /** The sessions of the daemon's workspace, most recent first. */
  public List<SessionSummary> sessions() throws IOException {
    DaemonClient reached = source.client();
    return reached.listSessions(servedWorkspace(reached));
  }

  /**
   * How a session is opened once the daemon is reached: a client and the workspace it serves here.
   */
  private interface Opening {
    DaemonIdeConnection open(DaemonClient client, String workspace);
  }

  private void follow(Opening opening) {
    DaemonIdeConnection opened;
    try {
      DaemonClient reached = source.client();
      String workspace = servedWorkspace(reached);
      opened = opening.open(reached, workspace);
    } catch (IOException e) {
      log.warn("No daemon for the chat: {}", e.getMessage());
      setProblem(e.getMessage());
      return;
    } catch (DaemonException | IllegalStateException | IllegalArgumentException e) {
      log.warn("No chat session on the daemon at {}: {}", daemonAddress(), e.getMessage());
      setProblem("cannot start a session on the daemon: " + e.getMessage());
      return;
    }
    DaemonIdeConnection previous;
    synchronized (this) {
      if (closed) {
        opened.close();
        return;
      }
      previous = connection;
      connection = opened;
      problem = "";
    }
    if (previous != null) {
      previous.close();
    }
    listener.accept(status());
  }

  /**
   * The daemon's workspace, once it says it serves one of the editor's roots.
   *
   * @throws IOException saying which workspace it serves instead
   */
  private String servedWorkspace(DaemonClient reached) throws IOException {
    Capabilities capabilities = reached.capabilities();
    synchronized (this) {
      client = reached;
      models = capabilities.modelServices();
    }
    String served = capabilities.workspaceCwd();
    if (served == null || !roots.contains(served)) {
      throw new IOException(
          "the daemon at "
              + reached.displayAddress()
              + " serves "
              + reached.redact(served)
              + ", which is not this editor's "
              + (roots.size() == 1
                  ? "workspace " + roots.get(0)
                  : "workspaces " + String.join(", ", roots))
              + "; start it there (qwen serve in that folder)");
    }
    return served;
  }

  public synchronized Status status() {
    return new Status(
        daemonAddress(),
        connection == null ? "" : connection.locality().workspace(),
        connection == null ? "" : connection.sessionId(),
        problem,
        models,
        Optional.ofNullable(connection).map(DaemonIdeConnection::conversation));
  }

  /**
   * The connection to talk through.
   *
   * @throws IllegalStateException saying why there is none
   */
  public synchronized DaemonIdeConnection connection() {
    if (connection == null) {
      throw new IllegalStateException(problem.isEmpty() ? "the chat has no session yet" : problem);
    }
    return connection;
  }

  @Override
  public void close() {
    DaemonIdeConnection last;
    synchronized (this) {
      closed = true;
      last = connection;
      connection = null;
    }
    if (last != null) {
      last.close();
    }
    source.close();
  }

  private void setProblem(String why) {
    synchronized (this) {
      problem = why;
    }
    listener.accept(status());
  }

  /** Where the daemon runs, as {@code host:port}, or empty before it is known. */
  private synchronized String daemonAddress() {
    return client == null ? "" : client.displayAddress();
  }
}
