package dev.companion4j.daemon;

import java.util.List;

/**
 * A typed event from a {@code qwen serve} session's event stream (daemon 0.24.4).
 *
 * <p>Only frames whose meaning the client knows get a type of their own; everything else arrives as
 * {@link Unknown} with the raw JSON, so nothing is dropped or guessed at.
 */
public sealed interface DaemonEvent {

  /** The envelope fields. */
  EventMeta meta();

  /** Calls the visitor's method for this event's type. */
  <R> R accept(Visitor<R> visitor);

  /**
   * One method per event type: every mapping of events (the listener's callbacks, the conversation)
   * implements it whole, so a new event type fails compilation in each until it is mapped there.
   */
  interface Visitor<R> {
    R visit(AgentMessageChunk event);

    R visit(AgentThoughtChunk event);

    R visit(UserMessageChunk event);

    R visit(ToolCall event);

    R visit(ToolCallUpdate event);

    R visit(Plan event);

    R visit(PermissionRequested event);

    R visit(PermissionResolved event);

    R visit(ModelSwitched event);

    R visit(ApprovalModeChanged event);

    R visit(ReplayComplete event);

    R visit(ModelSwitchFailed event);

    R visit(TurnComplete event);

    R visit(TurnError event);

    R visit(SessionDied event);

    R visit(SessionClosed event);

    R visit(StreamError event);

    R visit(ResyncRequired event);

    R visit(Unknown event);
  }

  /** A piece of the assistant's answer ({@code session_update / agent_message_chunk}). */
  record AgentMessageChunk(EventMeta meta, String text) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** A piece of the model's visible reasoning ({@code session_update / agent_thought_chunk}). */
  record AgentThoughtChunk(EventMeta meta, String text) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** The daemon's echo of a user prompt ({@code session_update / user_message_chunk}). */
  record UserMessageChunk(EventMeta meta, String text) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * The agent started a tool call ({@code session_update / tool_call}).
   *
   * @param kind the ACP tool kind ({@code edit}, {@code read}, {@code execute}, ...)
   * @param status {@code pending}, {@code in_progress}, {@code completed} or {@code failed}
   * @param locations file paths on the daemon's host the call touches
   * @param rawInputJson the tool arguments as JSON text ({@code {}} while they are still streaming)
   */
  record ToolCall(
      EventMeta meta,
      String toolCallId,
      String title,
      String kind,
      String status,
      List<String> locations,
      String rawInputJson)
      implements DaemonEvent {
    public ToolCall {
      locations = List.copyOf(locations);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * Progress of a tool call ({@code session_update / tool_call_update}); fields the update did not
   * carry are {@code null} (or empty).
   *
   * @param text the text content blocks of the update, joined by newlines (e.g. a failure reason)
   */
  record ToolCallUpdate(
      EventMeta meta,
      String toolCallId,
      String title,
      String status,
      List<String> locations,
      String text)
      implements DaemonEvent {
    public ToolCallUpdate {
      locations = List.copyOf(locations);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** The agent's current plan ({@code session_update / plan}); each update replaces the last. */
  record Plan(EventMeta meta, List<PlanEntry> entries) implements DaemonEvent {
    public Plan {
      entries = List.copyOf(entries);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** One step of a {@link Plan}. */
  record PlanEntry(String content, String priority, String status) {}

  /**
   * The agent waits for a decision on a tool call ({@code permission_request}). Answer it with
   * {@link DaemonSession#respondToPermission}, choosing one of {@link #options()}; {@link #diffs()}
   * are the file changes it would make.
   *
   * @param questions what the agent asks the user (Qwen Code's {@code ask_user_question}), empty
   *     for a plain permission request
   */
  record PermissionRequested(
      EventMeta meta,
      String requestId,
      String toolCallId,
      String title,
      String kind,
      List<String> locations,
      List<PermissionOption> options,
      List<FileDiff> diffs,
      List<Question> questions)
      implements DaemonEvent {
    public PermissionRequested {
      locations = List.copyOf(locations);
      options = List.copyOf(options);
      diffs = List.copyOf(diffs);
      questions = List.copyOf(questions);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * A change the tool call would make to a file ({@code {type: "diff"}} content of an ACP tool
   * call), so that it can be reviewed before it is allowed.
   *
   * @param path the file on the daemon's host
   * @param oldText its text now, empty for a new file
   * @param newText its text after the call
   */
  record FileDiff(String path, String oldText, String newText) {}

  /**
   * A choice the daemon offers for a permission request.
   *
   * @param kind {@code allow_once}, {@code allow_always}, {@code reject_once} or {@code
   *     reject_always}
   */
  record PermissionOption(String optionId, String name, String kind) {
    /** Whether choosing this option lets the tool run. */
    public boolean allows() {
      return kind != null && kind.startsWith("allow");
    }
  }

  /**
   * A question the agent asks the user before it goes on; the user picks among {@link #options()}
   * (several when {@link #multiSelect()}) or types an answer of their own.
   *
   * @param header a short label for it
   */
  record Question(
      String header, String question, List<QuestionOption> options, boolean multiSelect) {
    public Question {
      options = List.copyOf(options);
    }
  }

  /** One answer a {@link Question} offers. */
  record QuestionOption(String label, String description) {}

  /**
   * A permission request was decided, by this or another client ({@code permission_resolved}).
   *
   * @param selectedOptionId the chosen option, or {@code null} when the request was cancelled
   */
  record PermissionResolved(EventMeta meta, String requestId, String selectedOptionId)
      implements DaemonEvent {
    /** Whether the request was cancelled rather than answered with an option. */
    public boolean cancelled() {
      return selectedOptionId == null;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** The session now uses another model ({@code model_switched}). */
  record ModelSwitched(EventMeta meta, String modelId) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * The session's approval mode changed ({@code approval_mode_changed}).
   *
   * @param previous the mode before, as the daemon names it, or {@code null}
   * @param next the mode now ({@code default}, {@code auto-edit}, {@code yolo}, ...)
   */
  record ApprovalModeChanged(EventMeta meta, String previous, String next) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * The replay of events a subscription asked for is over; what follows is live ({@code
   * replay_complete}).
   */
  record ReplayComplete(EventMeta meta, long replayedCount) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** A model switch was refused ({@code model_switch_failed}). */
  record ModelSwitchFailed(EventMeta meta, String requestedModelId, String error)
      implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * A turn ended ({@code turn_complete}).
   *
   * @param stopReason {@code end_turn}, {@code cancelled}, {@code max_tokens}, ...
   */
  record TurnComplete(EventMeta meta, String stopReason) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** A turn failed ({@code turn_error}). */
  record TurnError(EventMeta meta, String message, String code, String errorKind)
      implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * The session is gone and will send nothing more.
   *
   * @param reason the daemon's reason ({@code channel_closed}, {@code daemon_shutdown}, ...), or,
   *     when {@code reportedByDaemon} is false, what the client observed ({@code
   *     daemon_unreachable}, {@code stream_unstable}, {@code session_not_found}, {@code rejected},
   *     {@code event_too_large}, {@code reader_failed})
   * @param exitCode the agent process's exit code, or {@code null}
   * @param signal the signal that ended the agent process, or {@code null}
   * @param reportedByDaemon true for the daemon's {@code session_died} frame; false when the client
   *     concluded it on its own because the daemon could not be reached again
   */
  record SessionDied(
      EventMeta meta, String reason, Integer exitCode, String signal, boolean reportedByDaemon)
      implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** The session was closed on purpose ({@code session_closed}). */
  record SessionClosed(EventMeta meta, String reason, String closedBy) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /** The daemon's event source failed ({@code stream_error}); the stream ends after it. */
  record StreamError(EventMeta meta, String error, String errorKind) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * The daemon no longer holds events the client missed ({@code state_resync_required}); what
   * follows starts at {@code earliestAvailableId}. The gap is real and is reported, not hidden.
   */
  record ResyncRequired(
      EventMeta meta, String reason, long lastDeliveredId, long earliestAvailableId)
      implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }

  /**
   * A frame this client has no type for.
   *
   * @param type the frame type; for {@code session_update} frames it is {@code
   *     session_update/<sessionUpdate>} (e.g. {@code session_update/usage_update})
   * @param rawJson the whole frame as the daemon sent it
   */
  record Unknown(EventMeta meta, String type, String rawJson) implements DaemonEvent {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visit(this);
    }
  }
}
