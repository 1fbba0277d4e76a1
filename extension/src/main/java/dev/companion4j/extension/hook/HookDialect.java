package dev.companion4j.extension.hook;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How one CLI speaks to its hooks: what its stdin JSON holds and what output it reads. The one
 * point where the runtimes differ; handlers see only {@link HookInput} and {@link HookAnswer}.
 */
interface HookDialect {
  /** Reads the CLI's stdin JSON, given as {@link FlatJson} paths. */
  HookInput read(Map<String, String> stdin);

  /** The stdout the CLI reads for {@code answer}; empty for none. */
  default String write(HookInput in, HookAnswer answer) {
    Map<String, String> out = new LinkedHashMap<>();
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
    Map<String, String> specific = new LinkedHashMap<>();
    if (answer.additionalContext() != null) {
      specific.put("hookEventName", in.event());
      specific.put("additionalContext", answer.additionalContext());
    }
    return out.isEmpty() && specific.isEmpty() ? "" : FlatJson.object(out, "hookSpecificOutput", specific);
  }

  /** What a subagent is told when its answer lacks the hand-off, and by whom. */
  String retryHandOff();

  static HookDialect of(String runtime) {
    return switch (runtime.toLowerCase(Locale.ROOT)) {
      case "qwen" -> new Qwen();
      case "gemini" -> new Gemini();
      default -> throw new IllegalArgumentException("unknown runtime '" + runtime + "': qwen or gemini");
    };
  }

  private static String text(Map<String, String> in, String key) {
    String v = in.get(key);
    return v == null ? "" : v;
  }

  /** Qwen Code: Claude-style events; a subagent has its own start and stop events. */
  final class Qwen implements HookDialect {
    @Override
    public HookInput read(Map<String, String> in) {
      return new HookInput(
          text(in, "hook_event_name"),
          text(in, "session_id"),
          text(in, "cwd"),
          text(in, "tool_input.command"),
          text(in, "agent_type"),
          in.get("last_assistant_message"),
          "true".equals(in.get("stop_hook_active")));
    }

    /** A blocking SubagentStop sends this to the subagent itself, which answers again. */
    @Override
    public String retryHandOff() {
      return HandOff.RETRY;
    }
  }

  /**
   * Gemini CLI: a subagent is the tool {@code invoke_agent}; its answer is the tool's response,
   * and a block replaces that response for the calling model.
   */
  final class Gemini implements HookDialect {
    @Override
    public HookInput read(Map<String, String> in) {
      String answer = in.keySet().stream().anyMatch(k -> k.startsWith("tool_response"))
          ? in.entrySet().stream()
              .filter(e -> e.getKey().startsWith("tool_response") && e.getValue() != null)
              .map(Map.Entry::getValue)
              .collect(Collectors.joining("\n"))
          : null;
      return new HookInput(
          text(in, "hook_event_name"),
          text(in, "session_id"),
          text(in, "cwd"),
          text(in, "tool_input.command"),
          text(in, "tool_input.agent_name"),
          answer,
          false);
    }

    /** The calling model gets this instead of the agent's answer: it is the one that can ask again. */
    @Override
    public String retryHandOff() {
      return HandOff.RETRY_CALLER;
    }
  }
}
