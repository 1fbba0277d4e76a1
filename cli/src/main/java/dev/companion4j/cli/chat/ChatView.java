package dev.companion4j.cli.chat;

import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.Question;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.PermissionDecision;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import dev.companion4j.daemon.conversation.Conversation.State;
import dev.companion4j.daemon.conversation.Conversations;
import dev.companion4j.daemon.conversation.Entry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Renders a session in the terminal from its {@link Conversation}, the model the review page and
 * NetBeans render: each event becomes the next conversation ({@link Conversations#apply}), and what
 * changed between the two is written: the answer as it streams, thoughts, tool calls and notices on
 * compact marked lines, permission requests as a numbered question, the agent's own questions one
 * by one.
 *
 * <p>Events arrive on the session's event thread while the user types on the main thread; every
 * write goes through {@link #lock} so lines do not interleave.
 */
final class ChatView implements DaemonListener {
  private final PrintStream out;
  private final Runnable onEnd;
  private final String ownClientId;
  private final AtomicReference<PendingPermission> pendingPermission = new AtomicReference<>();

  /** The answers given so far to the pending request's questions, which are asked one by one. */
  private final AtomicReference<List<String>> answers = new AtomicReference<>(List.of());

  private final Object lock = new Object();
  // Guarded by lock.
  private Conversation shown;
  private boolean midLine;

  /** The entry whose text the open line shows, so its next piece continues the line. */
  private String openEntry;

  /**
   * @param first the conversation the banner already showed
   * @param ownClientId this chat's client id, so the daemon's echo of its own prompts is not
   *     printed again
   * @param onEnd called once the session is gone for good
   */
  ChatView(PrintStream out, Conversation first, String ownClientId, Runnable onEnd) {
    this.out = out;
    this.shown = first;
    this.ownClientId = ownClientId;
    this.onEnd = onEnd;
  }

  /** Writes text as text (see {@link #plain}). */
  void print(String text) {
    synchronized (lock) {
      out.print(plain(text));
      out.flush();
      midLine = !text.isEmpty() && !text.endsWith("\n");
      openEntry = null;
    }
  }

  /** Writes a marked line of its own, after ending a line the answer left open. */
  void line(String text) {
    synchronized (lock) {
      if (midLine) {
        out.println();
      }
      out.println(plain(text));
      out.flush();
      midLine = false;
      openEntry = null;
    }
  }

  void prompt() {
    synchronized (lock) {
      if (midLine) {
        out.println();
      }
      out.print("> ");
      out.flush();
      midLine = true;
      openEntry = null;
    }
  }

  /** The user pressed Enter, so the terminal is at the start of a line again. */
  void userEnteredLine() {
    synchronized (lock) {
      midLine = false;
    }
  }

  /** The permission request waiting for the user's answer, if any. */
  Optional<PendingPermission> pendingPermission() {
    return Optional.ofNullable(pendingPermission.get());
  }

  /**
   * Turns the user's answer into a decision on the pending request: a number, or o / a / d for
   * allow once, always, deny. Empty when the answer matches no offered option.
   */
  static Optional<PermissionDecision> decide(PendingPermission request, String answer) {
    String a = answer.trim().toLowerCase(Locale.ROOT);
    List<PermissionOption> options = request.options();
    if (a.matches("\\d+")) {
      int n = Integer.parseInt(a);
      return n >= 1 && n <= options.size()
          ? Optional.of(PermissionDecision.select(options.get(n - 1)))
          : Optional.empty();
    }
    switch (a) {
      case "o":
      case "once":
        return byKind(options, "allow_once");
      case "a":
      case "always":
        return byKind(options, "allow_always");
      case "d":
      case "deny":
        return byKind(options, "reject_once")
            .or(() -> byKind(options, "reject_always"))
            .or(() -> Optional.of(PermissionDecision.cancel()));
      default:
        return Optional.empty();
    }
  }

  /**
   * The user's answer to the pending request, now no longer pending here; empty, after asking
   * again, when it matches no offered option.
   */
  Optional<PermissionDecision> answer(PendingPermission request, String text) {
    Optional<PermissionDecision> decision = decide(request, text);
    if (decision.isEmpty()) {
      print("Answer with 1-" + request.options().size() + ", o, a or d: ");
    } else {
      permissionAnswered(request.requestId());
    }
    return decision;
  }

  /**
   * The user's answer to the pending request's current question: a number (several, like {@code
   * 1,3}, where the question takes several), the user's own words, or {@code 0} to decline. Once
   * the last is answered, all the answers in order, and the request is no longer pending here; an
   * empty list when the user declined. Empty while questions remain (the next is asked) or when the
   * answer was not understood (asked again).
   */
  Optional<List<String>> answerQuestion(PendingPermission request, String text) {
    String a = text.strip();
    if (a.equals("0")) {
      permissionAnswered(request.requestId());
      return Optional.of(List.of());
    }
    List<String> given = answers.get();
    Question q = request.questions().get(given.size());
    String answer = a;
    if (a.matches("\\d+(\\s*,\\s*\\d+)*")) {
      List<Integer> picked = Arrays.stream(a.split("\\s*,\\s*")).map(Integer::valueOf).toList();
      if ((picked.size() > 1 && !q.multiSelect())
          || picked.stream().anyMatch(n -> n < 1 || n > q.options().size())) {
        print(questionPrompt(q));
        return Optional.empty();
      }
      answer =
          picked.stream()
              .map(n -> q.options().get(n - 1).label())
              .collect(Collectors.joining(", "));
    }
    if (answer.isEmpty()) {
      print(questionPrompt(q));
      return Optional.empty();
    }
    List<String> now = new ArrayList<>(given);
    now.add(answer);
    if (now.size() < request.questions().size()) {
      answers.set(List.copyOf(now));
      askQuestion(request.questions().get(now.size()));
      return Optional.empty();
    }
    permissionAnswered(request.requestId());
    return Optional.of(List.copyOf(now));
  }

  private static Optional<PermissionDecision> byKind(List<PermissionOption> options, String kind) {
    return options.stream()
        .filter(o -> kind.equals(o.kind()))
        .findFirst()
        .map(PermissionDecision::select);
  }

  /** The user answered the pending request (or it was decided elsewhere). */
  void permissionAnswered(String requestId) {
    pendingPermission.updateAndGet(p -> p != null && p.requestId().equals(requestId) ? null : p);
  }

  /** This chat sent a prompt: the agent works until the turn ends. */
  void promptSent() {
    change(Conversations::promptSent);
  }

  /** The whole conversation as a connection keeps it ({@code AcpIdeConnection}). */
  void show(Conversation now) {
    change(c -> now);
  }

  @Override
  public void onEvent(DaemonEvent event) {
    change(c -> Conversations.apply(c, event));
  }

  private void change(UnaryOperator<Conversation> step) {
    boolean ended;
    synchronized (lock) {
      Conversation was = shown;
      shown = step.apply(was);
      render(was, shown);
      ended = isOver(shown) && !isOver(was);
    }
    if (ended) {
      onEnd.run();
    }
  }

  private static boolean isOver(Conversation c) {
    return c.state() == State.DIED || c.state() == State.CLOSED;
  }

  /** Writes what {@code now} shows and {@code was} did not. */
  private void render(Conversation was, Conversation now) {
    boolean noticed = false;
    for (int i = 0; i < now.entries().size(); i++) {
      Entry before = i < was.entries().size() ? was.entries().get(i) : null;
      Entry entry = now.entries().get(i);
      if (entry != before) {
        // An entry keeps its id and place as it changes, so the one before is the same entry.
        noticed |= before == null && entry instanceof Entry.Notice;
        entry(before, entry);
      }
    }
    if (!now.plan().equals(was.plan()) && !now.plan().isEmpty()) {
      plan(now.plan());
    }
    if (!now.approvalMode().equals(was.approvalMode()) && !now.approvalMode().isEmpty()) {
      line("[approval mode] " + describe(now.approvalMode()));
    }
    // The daemon reports a switch twice: as requested, then as the agent names it ("id(authType)").
    if (!now.modelName().equals(was.modelName()) && !now.modelName().isEmpty()) {
      line("[model] now " + now.modelName());
    }
    permissions(was, now);
    // A turn that was cancelled or failed ended with a notice saying so.
    if (was.turnRunning() && !now.turnRunning() && !noticed) {
      line("[done]");
    }
  }

  private void entry(Entry before, Entry entry) {
    if (entry instanceof Entry.UserMessage u) {
      if (u.originatorClientId() == null || !u.originatorClientId().equals(ownClientId)) {
        stream(u.id(), "[another client asked] ", grown(before, u.text()));
      }
    } else if (entry instanceof Entry.AssistantMessage m) {
      stream(m.id(), "", grown(before, m.text()));
    } else if (entry instanceof Entry.Thought t) {
      stream(t.id(), "  (thinking) ", grown(before, t.text()).replace('\n', ' '));
    } else if (entry instanceof Entry.ToolCall t) {
      toolCall((Entry.ToolCall) before, t);
    } else if (entry instanceof Entry.Notice n && before == null) {
      line(
          switch (n.level()) {
                case INFO -> "[note] ";
                case WARNING -> "[warning] ";
                case ERROR -> "[error] ";
              }
              + n.text());
    }
  }

  /** What an entry's text gained since it was last written; its text only grows. */
  private static String grown(Entry before, String text) {
    String was =
        before instanceof Entry.AssistantMessage m
            ? m.text()
            : before instanceof Entry.Thought t
                ? t.text()
                : before instanceof Entry.UserMessage u ? u.text() : "";
    return text.startsWith(was) ? text.substring(was.length()) : text;
  }

  /** Writes a piece of an entry's text, continuing its line if that is still the open one. */
  private void stream(String entryId, String prefix, String text) {
    if (text.isEmpty()) {
      return;
    }
    if (!entryId.equals(openEntry)) {
      if (midLine) {
        out.println();
      }
      out.print(prefix);
    }
    out.print(plain(text));
    out.flush();
    midLine = !text.endsWith("\n");
    openEntry = entryId;
  }

  private void toolCall(Entry.ToolCall before, Entry.ToolCall call) {
    String title = nonNull(call.title(), call.toolCallId());
    if (before == null) {
      String where = call.locations().isEmpty() ? "" : " " + String.join(", ", call.locations());
      line("  [tool] " + title + " (" + nonNull(call.kind(), "other") + ")" + where);
    }
    if (before != null && Objects.equals(call.status(), before.status())) {
      return;
    }
    if ("completed".equals(call.status())) {
      line("  [tool done] " + title);
    } else if ("failed".equals(call.status())) {
      line("  [tool failed] " + title + (call.text().isEmpty() ? "" : ": " + call.text()));
    }
  }

  private void plan(List<PlanEntry> entries) {
    StringBuilder text = new StringBuilder("  [plan]");
    int n = 1;
    for (PlanEntry entry : entries) {
      text.append("\n    ")
          .append(n++)
          .append(". ")
          .append(entry.content())
          .append(" (")
          .append(entry.status())
          .append(')');
    }
    line(text.toString());
  }

  /**
   * Asks about each new request; says so when the one asked about was decided elsewhere or ended.
   */
  private void permissions(Conversation was, Conversation now) {
    for (PendingPermission request : now.permissions()) {
      if (!holds(was, request.requestId())) {
        ask(request);
      }
    }
    PendingPermission asked = pendingPermission.get();
    if (asked != null
        && !holds(now, asked.requestId())
        && pendingPermission.compareAndSet(asked, null)) {
      line("[permission request closed elsewhere]");
    }
  }

  private static boolean holds(Conversation c, String requestId) {
    return c.permissions().stream().anyMatch(p -> p.requestId().equals(requestId));
  }

  private void ask(PendingPermission request) {
    pendingPermission.set(request);
    if (!request.questions().isEmpty()) {
      answers.set(List.of());
      line("[question] the agent asks " + request.questions().size() + " question(s)");
      askQuestion(request.questions().get(0));
      return;
    }
    StringBuilder text =
        new StringBuilder("[permission] ").append(nonNull(request.title(), "tool call"));
    if (!request.locations().isEmpty()) {
      text.append(" - ").append(String.join(", ", request.locations()));
    }
    int n = 1;
    for (PermissionOption option : request.options()) {
      text.append("\n  ")
          .append(n++)
          .append(") ")
          .append(option.name())
          .append(" [")
          .append(label(option))
          .append(']');
    }
    line(text.toString());
    print("Allow? number, or o = once, a = always, d = deny: ");
  }

  private void askQuestion(Question q) {
    StringBuilder text =
        new StringBuilder("[question] ").append(q.header()).append(": ").append(q.question());
    int n = 1;
    for (DaemonEvent.QuestionOption option : q.options()) {
      text.append("\n  ").append(n++).append(") ").append(option.label());
      if (!option.description().isEmpty()) {
        text.append(" - ").append(option.description());
      }
    }
    line(text.toString());
    print(questionPrompt(q));
  }

  private static String questionPrompt(Question q) {
    return (q.multiSelect() ? "Answer: numbers like 1,2" : "Answer: a number")
        + ", or your own words; 0 declines: ";
  }

  /**
   * The agent's text as text: control characters (C0, DEL and C1, carriage returns too), which a
   * terminal would obey, are dropped; everything this view writes passes here.
   */
  private static String plain(String text) {
    return text.replaceAll("[\\p{Cc}&&[^\\n\\t]]", "");
  }

  private static String label(PermissionOption option) {
    String kind = nonNull(option.kind(), "");
    switch (kind) {
      case "allow_once":
        return "once";
      case "allow_always":
        return "always";
      case "reject_once":
      case "reject_always":
        return "deny";
      default:
        return kind;
    }
  }

  /** An approval mode as the daemon names it, and what it lets the agent do. */
  static String describe(String mode) {
    return mode
        + switch (mode) {
          case "plan" -> ": plans only, changes nothing";
          case "default" -> ": asks before edits and commands";
          case "auto-edit" -> ": edits files without asking, asks before commands";
          case "auto" -> ": decides per call, edits the workspace without asking";
          case "yolo" -> ": runs everything without asking";
          default -> "";
        };
  }

  @Override
  public void onConnectionChanged(ConnectionStatus status) {
    switch (status.state()) {
      case RECONNECTING:
        line(
            String.format(
                Locale.ROOT,
                "[connection lost: %s; reconnecting in %.1f s, attempt %d]",
                nonNull(status.detail(), "dropped"),
                status.retryIn().toMillis() / 1000.0,
                status.attempt()));
        break;
      case CONNECTED:
        if (status.attempt() > 0) {
          line("[reconnected; resuming after event " + status.lastEventId() + "]");
        }
        break;
      default:
        break;
    }
  }

  private static String nonNull(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }
}
