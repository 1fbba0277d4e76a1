package dev.companion4j.cli.chat;

import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.AgentThoughtChunk;
import dev.companion4j.daemon.DaemonEvent.ApprovalModeChanged;
import dev.companion4j.daemon.DaemonEvent.ModelSwitchFailed;
import dev.companion4j.daemon.DaemonEvent.ModelSwitched;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PermissionRequested;
import dev.companion4j.daemon.DaemonEvent.PermissionResolved;
import dev.companion4j.daemon.DaemonEvent.Plan;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.StreamError;
import dev.companion4j.daemon.DaemonEvent.ToolCall;
import dev.companion4j.daemon.DaemonEvent.ToolCallUpdate;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.DaemonEvent.UserMessageChunk;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.PermissionDecision;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Renders a session's events in the terminal: the answer as it streams, thoughts and tool calls
 * on compact marked lines, permission requests as a numbered question.
 *
 * <p>Events arrive on the session's event thread while the user types on the main thread; every
 * write goes through {@link #print} so lines do not interleave.
 */
final class ChatView implements DaemonListener {
  private final PrintStream out;
  private final Runnable onEnd;
  private final AtomicReference<PermissionRequested> pendingPermission = new AtomicReference<>();
  private final Object lock = new Object();
  private final Map<String, String> toolTitles = new ConcurrentHashMap<>();
  private volatile String shownModel;
  private volatile String ownClientId;
  private boolean midLine;
  private boolean inThought;

  /** @param onEnd called once the session is gone for good */
  ChatView(PrintStream out, Runnable onEnd) {
    this.out = out;
    this.onEnd = onEnd;
  }

  /** Writes text as is. */
  void print(String text) {
    synchronized (lock) {
      out.print(text);
      out.flush();
      midLine = !text.isEmpty() && !text.endsWith("\n");
    }
  }

  /** Writes a marked line of its own, after ending a line the answer left open. */
  void line(String text) {
    synchronized (lock) {
      if (midLine) {
        out.println();
      }
      out.println(text);
      out.flush();
      midLine = false;
      inThought = false;
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
    }
  }

  /** The user pressed Enter, so the terminal is at the start of a line again. */
  void userEnteredLine() {
    synchronized (lock) {
      midLine = false;
    }
  }

  /** This chat's client id, so the daemon's echo of its own prompts is not printed again. */
  void ownClientId(String clientId) {
    ownClientId = clientId;
  }

  /** The permission request waiting for the user's answer, if any. */
  Optional<PermissionRequested> pendingPermission() {
    return Optional.ofNullable(pendingPermission.get());
  }

  /**
   * Turns the user's answer into a decision on the pending request: a number, or o / a / d for
   * allow once, always, deny. Empty when the answer matches no offered option.
   */
  static Optional<PermissionDecision> decide(PermissionRequested request, String answer) {
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

  private static Optional<PermissionDecision> byKind(List<PermissionOption> options, String kind) {
    return options.stream().filter(o -> kind.equals(o.kind())).findFirst().map(PermissionDecision::select);
  }

  /** The user answered the pending request (or it was decided elsewhere). */
  void permissionAnswered(String requestId) {
    pendingPermission.updateAndGet(p -> p != null && p.requestId().equals(requestId) ? null : p);
  }

  @Override
  public void onAssistantText(AgentMessageChunk event) {
    synchronized (lock) {
      if (inThought) {
        out.println();
        inThought = false;
        midLine = false;
      }
    }
    if (!event.text().isEmpty()) {
      print(event.text());
    }
  }

  @Override
  public void onThinking(AgentThoughtChunk event) {
    synchronized (lock) {
      if (!inThought) {
        if (midLine) {
          out.println();
        }
        out.print("  (thinking) ");
        inThought = true;
      }
      out.print(event.text().replace('\n', ' '));
      out.flush();
      midLine = true;
    }
  }

  @Override
  public void onUserMessage(UserMessageChunk event) {
    String from = event.meta().originatorClientId();
    if (from == null || !from.equals(ownClientId)) {
      line("[another client asked] " + event.text());
    }
  }

  @Override
  public void onToolCall(ToolCall event) {
    rememberTitle(event.toolCallId(), event.title());
    String where = event.locations().isEmpty() ? "" : " " + String.join(", ", event.locations());
    line("  [tool] " + nonNull(event.title(), "tool call") + " (" + nonNull(event.kind(), "other") + ")" + where);
  }

  @Override
  public void onToolCallUpdate(ToolCallUpdate event) {
    rememberTitle(event.toolCallId(), event.title());
    String title = toolTitles.getOrDefault(event.toolCallId(), event.toolCallId());
    if ("completed".equals(event.status())) {
      line("  [tool done] " + title);
    } else if ("failed".equals(event.status())) {
      line("  [tool failed] " + title + (event.text() == null ? "" : ": " + event.text()));
    }
  }

  private void rememberTitle(String toolCallId, String title) {
    if (title != null && !title.isBlank()) {
      toolTitles.put(toolCallId, title);
    }
  }

  @Override
  public void onPlan(Plan event) {
    StringBuilder text = new StringBuilder("  [plan]");
    int n = 1;
    for (PlanEntry entry : event.entries()) {
      text.append("\n    ").append(n++).append(". ").append(entry.content()).append(" (").append(entry.status()).append(')');
    }
    line(text.toString());
  }

  @Override
  public void onPermissionRequest(PermissionRequested event) {
    pendingPermission.set(event);
    StringBuilder text = new StringBuilder("[permission] ").append(nonNull(event.title(), "tool call"));
    if (!event.locations().isEmpty()) {
      text.append(" - ").append(String.join(", ", event.locations()));
    }
    int n = 1;
    for (PermissionOption option : event.options()) {
      text.append("\n  ").append(n++).append(") ").append(option.name()).append(" [").append(label(option)).append(']');
    }
    line(text.toString());
    print("Allow? number, or o = once, a = always, d = deny: ");
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

  @Override
  public void onPermissionResolved(PermissionResolved event) {
    PermissionRequested pending = pendingPermission.get();
    if (pending != null && pending.requestId().equals(event.requestId())) {
      pendingPermission.set(null);
      line("[permission request closed: " + (event.cancelled() ? "cancelled" : event.selectedOptionId()) + "]");
    }
  }

  @Override
  public void onApprovalModeChanged(ApprovalModeChanged event) {
    line("[approval mode] " + describe(event.next()));
  }

  /** An approval mode as the daemon names it, and what it lets the agent do. */
  static String describe(String mode) {
    return mode + switch (mode) {
      case "plan" -> ": plans only, changes nothing";
      case "default" -> ": asks before edits and commands";
      case "auto-edit" -> ": edits files without asking, asks before commands";
      case "auto" -> ": decides per call, edits the workspace without asking";
      case "yolo" -> ": runs everything without asking";
      default -> "";
    };
  }

  @Override
  public void onModelSwitched(ModelSwitched event) {
    // The daemon reports a switch twice: as requested, then as the agent names it ("id(authType)").
    String model = event.modelId().replaceFirst("\\([^()]*\\)$", "");
    if (!model.equals(shownModel)) {
      shownModel = model;
      line("[model] now " + model);
    }
  }

  @Override
  public void onModelSwitchFailed(ModelSwitchFailed event) {
    line("[model] could not switch to " + event.requestedModelId() + ": " + event.error());
  }

  @Override
  public void onTurnComplete(TurnComplete event) {
    line("cancelled".equals(event.stopReason()) ? "[cancelled]" : "[done]");
  }

  @Override
  public void onTurnError(TurnError event) {
    line("[error] " + nonNull(event.message(), "the turn failed"));
  }

  @Override
  public void onSessionDied(SessionDied event) {
    end(event.reportedByDaemon()
        ? "the session died on the daemon (" + event.reason() + ")"
        : "the daemon cannot be reached any more (" + event.reason() + ")");
  }

  @Override
  public void onSessionClosed(SessionClosed event) {
    end("the session was closed (" + event.reason() + ")");
  }

  @Override
  public void onStreamError(StreamError event) {
    line("[stream error] " + event.error());
  }

  @Override
  public void onResyncRequired(ResyncRequired event) {
    line("[warning] the daemon no longer holds events " + (event.lastDeliveredId() + 1) + " to "
        + (event.earliestAvailableId() - 1) + "; some output is missing above");
  }

  @Override
  public void onUnsupported(DaemonEvent event) {
    // The chat renders what a terminal can show; the rest (usage, command lists) is not needed here.
  }

  @Override
  public void onConnectionChanged(ConnectionStatus status) {
    switch (status.state()) {
      case RECONNECTING:
        line(String.format(Locale.ROOT, "[connection lost: %s; reconnecting in %.1f s, attempt %d]",
            nonNull(status.detail(), "dropped"), status.retryIn().toMillis() / 1000.0, status.attempt()));
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

  private void end(String reason) {
    line("[session ended] " + reason);
    onEnd.run();
  }

  private static String nonNull(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }
}
