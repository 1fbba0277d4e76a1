package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import dev.companion4j.daemon.conversation.Conversation.State;
import dev.companion4j.daemon.conversation.Entry.Level;
import dev.companion4j.daemon.internal.EventDecoder;
import dev.companion4j.daemon.internal.Json;
import dev.companion4j.daemon.internal.TokenRedactor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a daemon session's events change what a chat view shows: one pure function per step, so every
 * front end (the review page, NetBeans, the terminal chat) shows the same thing and none maps
 * events itself.
 *
 * <p>Nothing is dropped unsaid: an event this model has no place for becomes a notice the first
 * time its type appears, saying that this view does not show it. Three kinds are left out on
 * purpose, and silently: the CLI's slash commands, which mean nothing outside the CLI, token
 * counts, and the ACP mode, which the approval mode already shows.
 */
public final class Conversations {
  private static final Set<String> LEFT_OUT =
      Set.of(
          "session_update/available_commands_update",
          "session_update/usage_update",
          // The ACP mode, which approval_mode_changed reports too.
          "session_update/current_mode_update");

  private static final TokenRedactor NO_TOKEN = TokenRedactor.of(null);

  private Conversations() {}

  /** The conversation after {@code event}. */
  public static Conversation apply(Conversation c, DaemonEvent event) {
    return event.accept(new Step(c));
  }

  /**
   * One event's change to {@code c}. As a {@link DaemonEvent.Visitor} it maps every event type: a
   * new one does not compile until it has its step here.
   */
  private record Step(Conversation c) implements DaemonEvent.Visitor<Conversation> {
    @Override
    public Conversation visit(DaemonEvent.AgentMessageChunk e) {
      return assistant(c, e.meta().promptId(), e.text());
    }

    @Override
    public Conversation visit(DaemonEvent.AgentThoughtChunk e) {
      return thought(c, e.meta().promptId(), e.text());
    }

    @Override
    public Conversation visit(DaemonEvent.UserMessageChunk e) {
      return user(c, e.meta().promptId(), e.meta().originatorClientId(), e.text());
    }

    @Override
    public Conversation visit(DaemonEvent.ToolCall e) {
      return toolCall(c, e);
    }

    @Override
    public Conversation visit(DaemonEvent.ToolCallUpdate e) {
      return toolCallUpdate(c, e);
    }

    @Override
    public Conversation visit(DaemonEvent.Plan e) {
      return with(c).plan(e.entries()).build();
    }

    @Override
    public Conversation visit(DaemonEvent.PermissionRequested e) {
      return permissionRequested(c, e);
    }

    @Override
    public Conversation visit(DaemonEvent.PermissionResolved e) {
      return with(c).permissions(without(c.permissions(), e.requestId())).build();
    }

    @Override
    public Conversation visit(DaemonEvent.ModelSwitched e) {
      return with(c).modelId(e.modelId()).build();
    }

    @Override
    public Conversation visit(DaemonEvent.ApprovalModeChanged e) {
      return with(c).approvalMode(e.next()).build();
    }

    @Override
    public Conversation visit(DaemonEvent.ReplayComplete e) {
      return c;
    }

    @Override
    public Conversation visit(DaemonEvent.ModelSwitchFailed e) {
      return notice(
          c,
          Level.WARNING,
          "The model stays "
              + c.modelId()
              + ": switching to "
              + e.requestedModelId()
              + " failed: "
              + e.error());
    }

    @Override
    public Conversation visit(DaemonEvent.TurnComplete e) {
      return turnEnded(c, e.stopReason());
    }

    @Override
    public Conversation visit(DaemonEvent.TurnError e) {
      return notice(turnEnded(c, "error"), Level.ERROR, "The turn failed: " + e.message());
    }

    @Override
    public Conversation visit(DaemonEvent.SessionDied e) {
      return ended(c, State.DIED, e.reason());
    }

    @Override
    public Conversation visit(DaemonEvent.SessionClosed e) {
      return ended(c, State.CLOSED, e.reason());
    }

    @Override
    public Conversation visit(DaemonEvent.StreamError e) {
      return notice(c, Level.WARNING, "The daemon's event stream failed: " + e.error());
    }

    @Override
    public Conversation visit(DaemonEvent.ResyncRequired e) {
      return notice(
          c,
          Level.WARNING,
          "Events "
              + (e.lastDeliveredId() + 1)
              + " to "
              + (e.earliestAvailableId() - 1)
              + " were lost while reconnecting; the daemon no longer holds them. What follows is complete.");
    }

    @Override
    public Conversation visit(DaemonEvent.Unknown e) {
      return unsupported(c, e.type());
    }
  }

  /**
   * The conversation after one ACP {@code session/update} from an agent this client drives itself:
   * the daemon's {@code session_update} events carry the same update objects, so both paths map
   * them through the one decoder and {@link #apply}.
   *
   * @param promptId the turn the update belongs to, so its chunks join one entry, or {@code null}
   * @param updateJson the notification's {@code update} object
   */
  public static Conversation applySessionUpdate(
      Conversation c, String sessionId, String promptId, String updateJson) {
    String envelope =
        "{\"type\":\"session_update\",\"promptId\":"
            + Json.MAPPER.writeValueAsString(promptId)
            + ",\"data\":{\"sessionId\":"
            + Json.MAPPER.writeValueAsString(sessionId)
            + ",\"update\":"
            + updateJson
            + "}}";
    return apply(c, EventDecoder.decode("session_update", envelope, sessionId, NO_TOKEN));
  }

  /** The conversation once this client sent a prompt: the agent works until the turn ends. */
  public static Conversation promptSent(Conversation c) {
    return with(c).turnRunning(true).build();
  }

  /** The conversation while the client reconnects to the daemon, or once it has. */
  public static Conversation reconnecting(Conversation c, boolean reconnecting) {
    if (c.state() == State.DIED || c.state() == State.CLOSED) {
      return c;
    }
    return with(c)
        .state(reconnecting ? State.RECONNECTING : State.CONNECTED)
        .stateReason("")
        .build();
  }

  private static Conversation assistant(Conversation c, String promptId, String text) {
    int at = lastSaid(c);
    if (at >= 0
        && c.entries().get(at) instanceof Entry.AssistantMessage m
        && m.streaming()
        && Objects.equals(m.promptId(), promptId)) {
      return replace(c, at, new Entry.AssistantMessage(m.id(), promptId, m.text() + text, true));
    }
    return add(closeStreams(c), id -> new Entry.AssistantMessage(id, promptId, text, true));
  }

  private static Conversation thought(Conversation c, String promptId, String text) {
    int at = lastSaid(c);
    if (at >= 0
        && c.entries().get(at) instanceof Entry.Thought t
        && t.streaming()
        && Objects.equals(t.promptId(), promptId)) {
      return replace(c, at, new Entry.Thought(t.id(), promptId, t.text() + text, true));
    }
    return add(closeStreams(c), id -> new Entry.Thought(id, promptId, text, true));
  }

  private static Conversation user(Conversation c, String promptId, String from, String text) {
    int at = lastSaid(c);
    if (at >= 0
        && c.entries().get(at) instanceof Entry.UserMessage u
        && promptId != null
        && promptId.equals(u.promptId())) {
      return replace(
          c, at, new Entry.UserMessage(u.id(), promptId, u.originatorClientId(), u.text() + text));
    }
    // Another client's prompt starts a turn here too.
    return with(add(closeStreams(c), id -> new Entry.UserMessage(id, promptId, from, text)))
        .turnRunning(true)
        .build();
  }

  /** Where the exchange left off: the last entry that is not a notice, or -1. */
  private static int lastSaid(Conversation c) {
    for (int i = c.entries().size() - 1; i >= 0; i--) {
      if (!(c.entries().get(i) instanceof Entry.Notice)) {
        return i;
      }
    }
    return -1;
  }

  private static Conversation toolCall(Conversation c, DaemonEvent.ToolCall e) {
    Entry.ToolCall call =
        new Entry.ToolCall(
            "tool-" + e.toolCallId(),
            e.toolCallId(),
            e.title(),
            e.kind(),
            e.status(),
            e.locations(),
            e.rawInputJson(),
            "");
    int at = indexOf(c, call.id());
    if (at >= 0) {
      // A replay after reconnecting announces it again.
      return replace(c, at, call);
    }
    return addEntry(closeStreams(c), call);
  }

  private static Conversation toolCallUpdate(Conversation c, DaemonEvent.ToolCallUpdate e) {
    int at = indexOf(c, "tool-" + e.toolCallId());
    if (at < 0) {
      Entry.ToolCall call =
          new Entry.ToolCall(
              "tool-" + e.toolCallId(),
              e.toolCallId(),
              orEmpty(e.title()),
              "",
              orEmpty(e.status()),
              e.locations(),
              "{}",
              orEmpty(e.text()));
      return addEntry(closeStreams(c), call);
    }
    Entry.ToolCall was = (Entry.ToolCall) c.entries().get(at);
    String text =
        e.text() == null || e.text().isEmpty()
            ? was.text()
            : was.text().isEmpty() ? e.text() : was.text() + "\n" + e.text();
    return replace(
        c,
        at,
        new Entry.ToolCall(
            was.id(),
            was.toolCallId(),
            e.title() == null ? was.title() : e.title(),
            was.kind(),
            e.status() == null ? was.status() : e.status(),
            e.locations().isEmpty() ? was.locations() : e.locations(),
            was.rawInputJson(),
            text));
  }

  private static Conversation permissionRequested(
      Conversation c, DaemonEvent.PermissionRequested e) {
    List<PendingPermission> pending = without(c.permissions(), e.requestId());
    pending.add(
        new PendingPermission(
            e.requestId(),
            e.toolCallId(),
            orEmpty(e.title()),
            orEmpty(e.kind()),
            e.locations(),
            e.options(),
            e.diffs(),
            e.questions()));
    return with(c).permissions(pending).build();
  }

  private static Conversation turnEnded(Conversation c, String stopReason) {
    Conversation ended = with(closeStreams(c)).turnRunning(false).build();
    return "cancelled".equals(stopReason) ? notice(ended, Level.INFO, "Cancelled.") : ended;
  }

  /** No more will come: streams close, and nothing can answer a pending request any more. */
  private static Conversation ended(Conversation c, State state, String reason) {
    Conversation ended =
        with(closeStreams(c))
            .state(state)
            .stateReason(orEmpty(reason))
            .turnRunning(false)
            .permissions(List.of())
            .build();
    return state == State.DIED
        ? notice(
            ended, Level.ERROR, "The session ended: " + orEmpty(reason) + ". Reconnect to go on.")
        : notice(
            ended,
            Level.INFO,
            "The session was closed"
                + (reason == null || reason.isEmpty() ? "." : ": " + reason + "."));
  }

  private static Conversation unsupported(Conversation c, String type) {
    if (LEFT_OUT.contains(type) || c.unsupportedTypes().contains(type)) {
      return c;
    }
    Set<String> seen = new HashSet<>(c.unsupportedTypes());
    seen.add(type);
    return notice(
        with(c).unsupportedTypes(seen).build(),
        Level.INFO,
        "The agent sent " + type + " events, which this view does not show.");
  }

  /** The conversation with a notice of its own client's, e.g. about the connection. */
  public static Conversation notice(Conversation c, Level level, String text) {
    return add(c, id -> new Entry.Notice(id, level, text));
  }

  /** Ends the streaming of every entry that streams: something else happens now. */
  private static Conversation closeStreams(Conversation c) {
    List<Entry> entries = new ArrayList<>(c.entries());
    boolean changed = false;
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if (e instanceof Entry.AssistantMessage m && m.streaming()) {
        entries.set(i, new Entry.AssistantMessage(m.id(), m.promptId(), m.text(), false));
        changed = true;
      } else if (e instanceof Entry.Thought t && t.streaming()) {
        entries.set(i, new Entry.Thought(t.id(), t.promptId(), t.text(), false));
        changed = true;
      }
    }
    return changed ? with(c).entries(entries).build() : c;
  }

  private interface EntryFactory {
    Entry create(String id);
  }

  private static Conversation add(Conversation c, EntryFactory entry) {
    Conversation numbered = with(c).nextEntry(c.nextEntry() + 1).build();
    return addEntry(numbered, entry.create("e" + c.nextEntry()));
  }

  private static Conversation addEntry(Conversation c, Entry entry) {
    List<Entry> entries = new ArrayList<>(c.entries());
    entries.add(entry);
    return with(c).entries(entries).build();
  }

  private static Conversation replace(Conversation c, int at, Entry entry) {
    List<Entry> entries = new ArrayList<>(c.entries());
    entries.set(at, entry);
    return with(c).entries(entries).build();
  }

  private static int indexOf(Conversation c, String id) {
    for (int i = c.entries().size() - 1; i >= 0; i--) {
      if (c.entries().get(i).id().equals(id)) {
        return i;
      }
    }
    return -1;
  }

  private static List<PendingPermission> without(
      List<PendingPermission> pending, String requestId) {
    List<PendingPermission> rest = new ArrayList<>(pending);
    rest.removeIf(p -> p.requestId().equals(requestId));
    return rest;
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static Builder with(Conversation c) {
    return new Builder(c);
  }

  /** Copies a conversation with some fields changed. */
  private static final class Builder {
    private State state;
    private String stateReason;
    private String modelId;
    private String approvalMode;
    private boolean turnRunning;
    private List<Entry> entries;
    private List<Conversation.PendingPermission> permissions;
    private List<DaemonEvent.PlanEntry> plan;
    private Set<String> unsupportedTypes;
    private long nextEntry;

    Builder(Conversation c) {
      state = c.state();
      stateReason = c.stateReason();
      modelId = c.modelId();
      approvalMode = c.approvalMode();
      turnRunning = c.turnRunning();
      entries = c.entries();
      plan = c.plan();
      permissions = c.permissions();
      unsupportedTypes = c.unsupportedTypes();
      nextEntry = c.nextEntry();
    }

    Builder state(State v) {
      state = v;
      return this;
    }

    Builder stateReason(String v) {
      stateReason = v;
      return this;
    }

    Builder modelId(String v) {
      modelId = v == null ? "" : v;
      return this;
    }

    Builder approvalMode(String v) {
      approvalMode = v == null ? "" : v;
      return this;
    }

    Builder turnRunning(boolean v) {
      turnRunning = v;
      return this;
    }

    Builder entries(List<Entry> v) {
      entries = v;
      return this;
    }

    Builder plan(List<DaemonEvent.PlanEntry> v) {
      plan = v;
      return this;
    }

    Builder permissions(List<Conversation.PendingPermission> v) {
      permissions = v;
      return this;
    }

    Builder unsupportedTypes(Set<String> v) {
      unsupportedTypes = v;
      return this;
    }

    Builder nextEntry(long v) {
      nextEntry = v;
      return this;
    }

    Conversation build() {
      return new Conversation(
          state,
          stateReason,
          modelId,
          approvalMode,
          turnRunning,
          entries,
          plan,
          permissions,
          unsupportedTypes,
          nextEntry);
    }
  }
}
