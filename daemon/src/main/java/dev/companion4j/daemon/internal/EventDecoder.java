package dev.companion4j.daemon.internal;

import static dev.companion4j.daemon.internal.Json.integer;
import static dev.companion4j.daemon.internal.Json.number;
import static dev.companion4j.daemon.internal.Json.scalar;
import static dev.companion4j.daemon.internal.Json.text;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.AgentThoughtChunk;
import dev.companion4j.daemon.DaemonEvent.ApprovalModeChanged;
import dev.companion4j.daemon.DaemonEvent.FileDiff;
import dev.companion4j.daemon.DaemonEvent.ModelSwitchFailed;
import dev.companion4j.daemon.DaemonEvent.ModelSwitched;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PermissionRequested;
import dev.companion4j.daemon.DaemonEvent.PermissionResolved;
import dev.companion4j.daemon.DaemonEvent.Plan;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.ReplayComplete;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.StreamError;
import dev.companion4j.daemon.DaemonEvent.ToolCall;
import dev.companion4j.daemon.DaemonEvent.ToolCallUpdate;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import dev.companion4j.daemon.DaemonEvent.UserMessageChunk;
import dev.companion4j.daemon.EventMeta;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Turns one SSE frame of {@code GET /session/:id/events} into a {@link DaemonEvent}.
 *
 * <p>The frame's {@code data:} is the whole envelope {@code {id, v, type, data, promptId,
 * originatorClientId, _meta}}. Payload shapes were read from the 0.24.4 daemon and its SDK's {@code
 * events.d.ts}; a frame whose shape does not match becomes {@link Unknown} rather than a
 * half-filled typed event.
 */
public final class EventDecoder {
  private EventDecoder() {}

  /**
   * @param sseEvent the frame's {@code event:} name, used when the data is not an envelope
   * @param data the frame's data
   * @param sessionId the subscribed session, used when the payload does not name one
   * @param redactor cuts the token out of everything the frame says
   */
  public static DaemonEvent decode(
      String sseEvent, String data, String sessionId, TokenRedactor redactor) {
    JsonNode envelope;
    try {
      envelope = redactor.redact(Json.MAPPER.readTree(data));
    } catch (JacksonException e) {
      return new Unknown(
          new EventMeta(0, sessionId, null, null, 0),
          redactor.redact(sseEvent),
          redactor.redact(data));
    }
    String type = text(envelope, "type");
    if (envelope == null || !envelope.isObject() || type == null) {
      return new Unknown(
          new EventMeta(0, sessionId, null, null, 0),
          redactor.redact(sseEvent),
          redactor.redact(data));
    }
    JsonNode payload = envelope.path("data");
    String payloadSession = text(payload, "sessionId");
    String promptId = text(envelope, "promptId");
    if (promptId == null) {
      promptId = text(payload, "promptId");
    }
    EventMeta meta =
        new EventMeta(
            Math.max(0, number(envelope, "id", 0)),
            payloadSession != null ? payloadSession : sessionId,
            promptId,
            text(envelope, "originatorClientId"),
            number(envelope.path("_meta"), "serverTimestamp", 0));
    DaemonEvent typed = typed(type, payload, meta);
    if (typed != null) {
      return typed;
    }
    String unknownType =
        "session_update".equals(type) && text(payload.path("update"), "sessionUpdate") != null
            ? type + "/" + text(payload.path("update"), "sessionUpdate")
            : type;
    return new Unknown(meta, unknownType, redactor.redact(data));
  }

  private static DaemonEvent typed(String type, JsonNode p, EventMeta meta) {
    switch (type) {
      case "session_update":
        return sessionUpdate(p.path("update"), meta);
      case "permission_request":
        return permissionRequest(p, meta);
      case "permission_resolved":
        return permissionResolved(p, meta);
      case "model_switched":
        return text(p, "modelId") == null ? null : new ModelSwitched(meta, text(p, "modelId"));
      case "model_switch_failed":
        return new ModelSwitchFailed(meta, text(p, "requestedModelId"), text(p, "error"));
      case "turn_complete":
        return text(p, "stopReason") == null ? null : new TurnComplete(meta, text(p, "stopReason"));
      case "turn_error":
        return new TurnError(meta, text(p, "message"), scalar(p, "code"), text(p, "errorKind"));
      case "session_died":
        return new SessionDied(
            meta, text(p, "reason"), integer(p, "exitCode"), text(p, "signalCode"), true);
      case "session_closed":
        return new SessionClosed(meta, text(p, "reason"), text(p, "closedBy"));
      case "stream_error":
        return new StreamError(meta, text(p, "error"), text(p, "errorKind"));
      case "approval_mode_changed":
        return text(p, "next") == null
            ? null
            : new ApprovalModeChanged(meta, text(p, "previous"), text(p, "next"));
      case "replay_complete":
        return new ReplayComplete(meta, number(p, "replayedCount", 0));
      case "state_resync_required":
        return new ResyncRequired(
            meta,
            text(p, "reason"),
            number(p, "lastDeliveredId", 0),
            number(p, "earliestAvailableId", 0));
      default:
        return null;
    }
  }

  private static DaemonEvent sessionUpdate(JsonNode u, EventMeta meta) {
    String kind = text(u, "sessionUpdate");
    if (kind == null) {
      return null;
    }
    switch (kind) {
      case "agent_message_chunk":
        return textContent(u) == null ? null : new AgentMessageChunk(meta, textContent(u));
      case "agent_thought_chunk":
        return textContent(u) == null ? null : new AgentThoughtChunk(meta, textContent(u));
      case "user_message_chunk":
        return textContent(u) == null ? null : new UserMessageChunk(meta, textContent(u));
      case "tool_call":
        if (text(u, "toolCallId") == null) {
          return null;
        }
        return new ToolCall(
            meta,
            text(u, "toolCallId"),
            text(u, "title"),
            text(u, "kind"),
            text(u, "status"),
            locations(u),
            u.has("rawInput") ? u.get("rawInput").toString() : "{}");
      case "tool_call_update":
        if (text(u, "toolCallId") == null) {
          return null;
        }
        return new ToolCallUpdate(
            meta,
            text(u, "toolCallId"),
            text(u, "title"),
            text(u, "status"),
            locations(u),
            joinedText(u.path("content")));
      case "plan":
        return plan(u, meta);
      default:
        return null;
    }
  }

  /** The text of a {@code content: {type: "text", text}} block, or null for other content. */
  private static String textContent(JsonNode update) {
    JsonNode content = update.path("content");
    return "text".equals(text(content, "type")) ? text(content, "text") : null;
  }

  /** Joins the text of ACP tool content blocks ({@code {type: "content", content: {text}}}). */
  private static String joinedText(JsonNode contentArray) {
    if (!contentArray.isArray()) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode block : contentArray) {
      String piece =
          "content".equals(text(block, "type")) ? text(block.path("content"), "text") : null;
      if (piece != null) {
        if (out.length() > 0) {
          out.append('\n');
        }
        out.append(piece);
      }
    }
    return out.length() == 0 ? null : out.toString();
  }

  private static List<String> locations(JsonNode holder) {
    List<String> out = new ArrayList<>();
    for (JsonNode location : holder.path("locations")) {
      String path = text(location, "path");
      if (path != null) {
        out.add(path);
      }
    }
    return out;
  }

  private static DaemonEvent plan(JsonNode u, EventMeta meta) {
    if (!u.path("entries").isArray()) {
      return null;
    }
    List<PlanEntry> entries = new ArrayList<>();
    for (JsonNode entry : u.path("entries")) {
      entries.add(
          new PlanEntry(text(entry, "content"), text(entry, "priority"), text(entry, "status")));
    }
    return new Plan(meta, entries);
  }

  private static DaemonEvent permissionRequest(JsonNode p, EventMeta meta) {
    String requestId = text(p, "requestId");
    if (requestId == null || !p.path("options").isArray()) {
      return null;
    }
    List<PermissionOption> options = new ArrayList<>();
    for (JsonNode option : p.path("options")) {
      String optionId = text(option, "optionId");
      if (optionId != null) {
        options.add(new PermissionOption(optionId, text(option, "name"), text(option, "kind")));
      }
    }
    JsonNode toolCall = p.path("toolCall");
    return new PermissionRequested(
        meta,
        requestId,
        text(toolCall, "toolCallId"),
        text(toolCall, "title"),
        text(toolCall, "kind"),
        locations(toolCall),
        options,
        diffs(toolCall.path("content")),
        // The daemon path does not ask the agent's questions (docs/chat-acp.md).
        List.of());
  }

  /** The {@code {type: "diff", path, oldText, newText}} blocks of ACP tool content. */
  private static List<FileDiff> diffs(JsonNode contentArray) {
    List<FileDiff> diffs = new ArrayList<>();
    for (JsonNode block : contentArray) {
      String path = text(block, "path");
      String newText = text(block, "newText");
      if ("diff".equals(text(block, "type")) && path != null && newText != null) {
        String oldText = text(block, "oldText");
        diffs.add(new FileDiff(path, oldText == null ? "" : oldText, newText));
      }
    }
    return diffs;
  }

  private static DaemonEvent permissionResolved(JsonNode p, EventMeta meta) {
    String requestId = text(p, "requestId");
    JsonNode outcome = p.path("outcome");
    String kind = text(outcome, "outcome");
    String optionId = text(outcome, "optionId");
    if (requestId == null
        || !("cancelled".equals(kind) || "selected".equals(kind) && optionId != null)) {
      return null;
    }
    return new PermissionResolved(meta, requestId, "selected".equals(kind) ? optionId : null);
  }
}
