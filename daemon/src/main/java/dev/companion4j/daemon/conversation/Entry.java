package dev.companion4j.daemon.conversation;

import java.util.List;

/**
 * One item of a {@link Conversation}, in the order it happened. Each has an id that stays the same
 * while it grows or changes, so a view can update it in place.
 */
public sealed interface Entry {

  /** Stable within its conversation. */
  String id();

  /**
   * What a user sent, from this client or another one attached to the session.
   *
   * @param originatorClientId the client that sent it, as the daemon stamped it, or {@code null}
   */
  record UserMessage(String id, String promptId, String originatorClientId, String text)
      implements Entry {}

  /**
   * The assistant's answer, as Markdown.
   *
   * @param streaming true while more of it may arrive
   */
  record AssistantMessage(String id, String promptId, String text, boolean streaming)
      implements Entry {}

  /** The model's visible reasoning; views show it collapsed. */
  record Thought(String id, String promptId, String text, boolean streaming) implements Entry {}

  /**
   * A tool the agent runs.
   *
   * @param kind the ACP kind: {@code edit}, {@code read}, {@code execute}, ...
   * @param status {@code pending}, {@code in_progress}, {@code completed} or {@code failed}
   * @param locations paths on the daemon's host
   * @param rawInputJson its arguments as JSON text
   * @param text what its updates said (a result or a failure), joined by newlines
   */
  record ToolCall(
      String id,
      String toolCallId,
      String title,
      String kind,
      String status,
      List<String> locations,
      String rawInputJson,
      String text)
      implements Entry {
    public ToolCall {
      locations = List.copyOf(locations);
    }
  }

  /**
   * Something the user should know that is not part of the exchange: a turn that failed or was
   * cancelled, a refused model switch, events lost in a reconnect, or an event this view cannot
   * show.
   */
  record Notice(String id, Level level, String text) implements Entry {}

  /** How a {@link Notice} reads. */
  enum Level {
    INFO,
    WARNING,
    ERROR
  }
}
