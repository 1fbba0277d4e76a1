package dev.companion4j.extension.hook;

import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * How one CLI speaks to its hooks: what its stdin JSON holds and what output it reads. The one
 * point where the runtimes differ; handlers see only {@link HookInput} and {@link HookAnswer}.
 */
interface HookDialect {
  /** Reads the CLI's stdin JSON. */
  HookInput read(JsonNode stdin);

  /** The stdout the CLI reads for {@code answer} to the hook of {@code event}; empty for none. */
  String write(String event, HookAnswer answer);

  static HookDialect of(String runtime) {
    return switch (runtime.toLowerCase(Locale.ROOT)) {
      case "qwen" -> new Qwen();
      case "gemini" -> new Gemini();
      default -> throw new IllegalArgumentException("unknown runtime '" + runtime + "': qwen or gemini");
    };
  }

  /** Qwen Code: Claude-style events; subagents have their own events. */
  final class Qwen implements HookDialect {
    @Override
    public HookInput read(JsonNode in) {
      return new HookInput(
          in.path("session_id").asString(""),
          in.path("cwd").asString(""),
          in.path("tool_name").asString(""),
          in.path("tool_input"),
          in.path("agent_type").asString(""),
          in.path("last_assistant_message").asString(null),
          in.path("stop_hook_active").asBoolean(false));
    }

    @Override
    public String write(String event, HookAnswer answer) {
      return common(event, answer);
    }
  }

  /** Gemini CLI: a subagent is the tool {@code invoke_agent}; its answer is the tool's response. */
  final class Gemini implements HookDialect {
    @Override
    public HookInput read(JsonNode in) {
      JsonNode input = in.path("tool_input");
      JsonNode response = in.path("tool_response");
      String answer = response.isMissingNode() ? null : text(response);
      return new HookInput(
          in.path("session_id").asString(""),
          in.path("cwd").asString(""),
          in.path("tool_name").asString(""),
          input,
          input.path("agent_name").asString(""),
          answer,
          false);
    }

    @Override
    public String write(String event, HookAnswer answer) {
      return common(event, answer);
    }

    /** The text of a tool response, however the CLI nested it. */
    private static String text(JsonNode response) {
      if (response.isString()) {
        return response.asString();
      }
      StringBuilder all = new StringBuilder();
      for (JsonNode n : response.findValues("text")) {
        all.append(n.asString("")).append('\n');
      }
      for (JsonNode n : response.findValues("llmContent")) {
        if (n.isString()) {
          all.append(n.asString()).append('\n');
        }
      }
      return all.isEmpty() ? response.toString() : all.toString();
    }
  }

  /** The output both CLIs read today: {@code decision}, {@code reason}, {@code systemMessage}, context. */
  private static String common(String event, HookAnswer answer) {
    ObjectNode out = JsonMapper.shared().createObjectNode();
    switch (answer.decision()) {
      case DENY -> out.put("decision", "deny");
      case ASK -> out.put("decision", "ask");
      case BLOCK -> out.put("decision", "block");
      case NONE -> { }
    }
    if (answer.reason() != null) {
      out.put("reason", answer.reason());
    }
    if (answer.systemMessage() != null) {
      out.put("systemMessage", answer.systemMessage());
    }
    if (answer.additionalContext() != null) {
      out.putObject("hookSpecificOutput").put("hookEventName", event).put("additionalContext", answer.additionalContext());
    }
    return out.isEmpty() ? "" : out.toString();
  }
}
