package dev.companion4j.cli.daemonchat;

import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.Question;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.Entry;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The chat as the review page reads it: each entry names its {@code type}. */
final class ChatJson {
  private ChatJson() {}

  static Map<String, Object> status(DaemonChat.Status status) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("configured", true);
    json.put("path", "daemon");
    json.put("daemon", status.daemon());
    json.put("workspace", status.workspace());
    json.put("sessionId", status.sessionId());
    json.put("problem", status.problem());
    json.put("models", status.models());
    json.put("conversation", status.conversation().map(ChatJson::conversation).orElse(null));
    return json;
  }

  /** A path the companion was started without: the page shows no chat panel for it. */
  static Map<String, Object> unconfigured(String problem) {
    return Map.of("configured", false, "problem", problem);
  }

  static Map<String, Object> conversation(Conversation c) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("state", c.state().name().toLowerCase(Locale.ROOT));
    json.put("stateReason", c.stateReason());
    json.put("modelId", c.modelId());
    json.put("modelName", c.modelName());
    json.put("approvalMode", c.approvalMode());
    json.put("turnRunning", c.turnRunning());
    json.put("entries", c.entries().stream().map(ChatJson::entry).toList());
    json.put("plan", c.plan().stream().map(ChatJson::planEntry).toList());
    json.put("permissions", c.permissions().stream().map(ChatJson::permission).toList());
    return json;
  }

  private static Map<String, Object> entry(Entry e) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", e.id());
    if (e instanceof Entry.UserMessage u) {
      json.put("type", "user");
      json.put("text", u.text());
    } else if (e instanceof Entry.AssistantMessage m) {
      json.put("type", "assistant");
      json.put("text", m.text());
      json.put("streaming", m.streaming());
    } else if (e instanceof Entry.Thought t) {
      json.put("type", "thought");
      json.put("text", t.text());
      json.put("streaming", t.streaming());
    } else if (e instanceof Entry.ToolCall t) {
      json.put("type", "toolCall");
      json.put("toolCallId", t.toolCallId());
      json.put("title", t.title());
      json.put("kind", t.kind());
      json.put("status", t.status());
      json.put("locations", t.locations());
      json.put("text", t.text());
    } else if (e instanceof Entry.Notice n) {
      json.put("type", "notice");
      json.put("level", n.level().name().toLowerCase(Locale.ROOT));
      json.put("text", n.text());
    }
    return json;
  }

  static Map<String, Object> session(SessionSummary s) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("sessionId", s.sessionId());
    json.put("displayName", s.displayName());
    json.put("updatedAt", s.updatedAt());
    json.put("clientCount", s.clientCount());
    json.put("activePrompt", s.activePrompt());
    return json;
  }

  private static Map<String, Object> planEntry(PlanEntry p) {
    return Map.of(
        "content",
        p.content(),
        "priority",
        String.valueOf(p.priority()),
        "status",
        String.valueOf(p.status()));
  }

  private static Map<String, Object> permission(Conversation.PendingPermission p) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("requestId", p.requestId());
    json.put("toolCallId", p.toolCallId());
    json.put("title", p.title());
    json.put("kind", p.kind());
    json.put("locations", p.locations());
    json.put("options", p.options().stream().map(ChatJson::option).toList());
    json.put(
        "diffs",
        p.diffs().stream()
            .map(d -> Map.of("path", d.path(), "oldText", d.oldText(), "newText", d.newText()))
            .toList());
    json.put("questions", p.questions().stream().map(ChatJson::question).toList());
    return json;
  }

  private static Map<String, Object> question(Question q) {
    return Map.of(
        "header",
        q.header(),
        "question",
        q.question(),
        "multiSelect",
        q.multiSelect(),
        "options",
        q.options().stream()
            .map(o -> Map.of("label", o.label(), "description", o.description()))
            .toList());
  }

  private static Map<String, Object> option(PermissionOption o) {
    return Map.of(
        "optionId",
        o.optionId(),
        "name",
        String.valueOf(o.name()),
        "kind",
        String.valueOf(o.kind()),
        "allows",
        o.allows());
  }
}
