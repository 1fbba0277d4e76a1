package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.ApprovalMode;
import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.DaemonSession;
import dev.companion4j.daemon.PermissionDecision;
import dev.companion4j.daemon.SessionOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * An editor's connection to one {@code qwen serve} session, as the IDE adapter draft has it: this
 * side owns the daemon client, the session and its replay state, and keeps the {@link
 * Conversation}; front ends render conversations and send intents, and never learn the daemon's
 * token.
 *
 * <p>Thread-safe. The listener is called on the connection's own thread ({@code
 * companion4j-daemon-view}), one call at a time, with each conversation in the order it came about;
 * a slow listener delays only later calls, never the event stream.
 */
public final class DaemonIdeConnection implements AutoCloseable {

  /** What a front end hears: the whole conversation after each change. */
  @FunctionalInterface
  public interface Listener {
    void changed(Conversation conversation);
  }

  /**
   * Where the agent runs, which a front end shows: its files, tools and credentials are those of
   * the daemon's host, not the editor's.
   *
   * @param daemon where the daemon runs, as {@code host:port} (see {@link
   *     DaemonClient#displayAddress()})
   * @param workspace the session's workspace, a path on the daemon's host
   */
  public record Locality(String daemon, String workspace) {}

  private final DaemonSession session;
  private final UnaryOperator<String> redact;
  private final Locality locality;
  private final ConversationFeed feed;

  private DaemonIdeConnection(
      DaemonSession session,
      UnaryOperator<String> redact,
      Locality locality,
      Conversation first,
      Listener listener) {
    this.session = session;
    this.redact = redact;
    this.locality = locality;
    this.feed = new ConversationFeed("companion4j-daemon-view", first, listener::changed);
  }

  /**
   * Creates or attaches to a session and follows it, replaying what the daemon still holds of it. A
   * session this creates asks before edits and commands unless {@code options} chose another
   * approval mode.
   *
   * @throws dev.companion4j.daemon.DaemonException when the daemon refuses, e.g. a workspace it
   *     does not serve
   */
  public static DaemonIdeConnection open(
      DaemonClient client, SessionOptions options, Listener listener) {
    Objects.requireNonNull(listener, "listener");
    SessionOptions safe =
        options.approvalMode() == null ? options.withApprovalMode(ApprovalMode.DEFAULT) : options;
    DaemonSession session = client.createOrAttach(safe);
    return follow(
        client,
        session,
        Conversation.connected(safe.modelServiceId(), safe.approvalMode().wireName()),
        listener);
  }

  /**
   * Joins a live session by its id, one another client (a terminal, a browser) started, and follows
   * it; its history replays into the conversation. Its approval mode stays the session's.
   *
   * @throws dev.companion4j.daemon.DaemonException with status 404 when the daemon holds no live
   *     session with that id
   */
  public static DaemonIdeConnection attach(
      DaemonClient client, String sessionId, Listener listener) {
    Objects.requireNonNull(listener, "listener");
    return follow(client, client.attach(sessionId), Conversation.connected(null, null), listener);
  }

  private static DaemonIdeConnection follow(
      DaemonClient client, DaemonSession session, Conversation first, Listener listener) {
    Locality locality = new Locality(client.displayAddress(), session.workspaceCwd());
    DaemonIdeConnection connection =
        new DaemonIdeConnection(session, client::redact, locality, first, listener);
    try {
      session.subscribe(connection.new Events(), 0);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
    return connection;
  }

  /** The session's id on the daemon. */
  public String sessionId() {
    return session.sessionId();
  }

  public Locality locality() {
    return locality;
  }

  /** The conversation as it is now. */
  public Conversation conversation() {
    return feed.conversation();
  }

  /** Sends a prompt; the answer arrives as changes of the conversation. */
  public void prompt(String text) {
    session.prompt(text);
    change(Conversations::promptSent);
  }

  /** Cancels the running turn; it ends with a "Cancelled." notice. */
  public void cancel() {
    session.cancel();
  }

  /** Switches the model; the conversation shows the new one once the daemon confirms it. */
  public void setModel(String modelId) {
    session.setModel(modelId);
  }

  /**
   * Answers a permission request with one of its options.
   *
   * @return false when it was no longer pending (answered elsewhere or ended)
   */
  public boolean answer(String requestId, String optionId) {
    return session.respondToPermission(requestId, PermissionDecision.select(optionId));
  }

  /** Stops following the session and leaves it to other clients. */
  @Override
  public void close() {
    session.close();
    feed.close();
  }

  private void change(UnaryOperator<Conversation> step) {
    feed.change(c -> redacted(c, step.apply(c)));
  }

  /**
   * The conversation with the text of each entry that changed redacted again: every event comes
   * without the token, but a token split across chunks is whole only once they are joined.
   */
  private Conversation redacted(Conversation was, Conversation now) {
    if (now == was) {
      return now;
    }
    List<Entry> entries = new ArrayList<>(now.entries());
    boolean changed = false;
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if (i < was.entries().size() && was.entries().get(i) == e) {
        continue;
      }
      Entry clean = redacted(e);
      changed |= clean != e;
      entries.set(i, clean);
    }
    return changed ? now.withEntries(entries) : now;
  }

  private Entry redacted(Entry e) {
    if (e instanceof Entry.AssistantMessage m) {
      String text = redact.apply(m.text());
      return text.equals(m.text())
          ? e
          : new Entry.AssistantMessage(m.id(), m.promptId(), text, m.streaming());
    } else if (e instanceof Entry.Thought t) {
      String text = redact.apply(t.text());
      return text.equals(t.text())
          ? e
          : new Entry.Thought(t.id(), t.promptId(), text, t.streaming());
    } else if (e instanceof Entry.UserMessage u) {
      String text = redact.apply(u.text());
      return text.equals(u.text())
          ? e
          : new Entry.UserMessage(u.id(), u.promptId(), u.originatorClientId(), text);
    } else if (e instanceof Entry.ToolCall t) {
      String text = redact.apply(t.text());
      return text.equals(t.text())
          ? e
          : new Entry.ToolCall(
              t.id(),
              t.toolCallId(),
              t.title(),
              t.kind(),
              t.status(),
              t.locations(),
              t.rawInputJson(),
              text);
    }
    return e;
  }

  /** On the session's event thread: each event is one step of the conversation. */
  private final class Events implements DaemonListener {
    @Override
    public void onEvent(DaemonEvent event) {
      change(c -> Conversations.apply(c, event));
    }

    @Override
    public void onConnectionChanged(ConnectionStatus status) {
      switch (status.state()) {
        case RECONNECTING -> change(c -> Conversations.reconnecting(c, true));
        case CONNECTED -> change(c -> Conversations.reconnecting(c, false));
        case LOST, CLOSED -> {
          // The session's own end arrives as an event (a died or closed session).
        }
      }
    }
  }
}
