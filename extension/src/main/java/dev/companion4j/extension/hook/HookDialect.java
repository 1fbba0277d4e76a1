package dev.companion4j.extension.hook;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

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
      case NONE -> {}
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
    return out.isEmpty() && specific.isEmpty()
        ? ""
        : FlatJson.object(out, "hookSpecificOutput", specific);
  }

  /** What a subagent is told when its answer lacks the hand-off, and by whom. */
  String retryHandOff();

  /**
   * Whether the CLI says itself that a stop hook already sent this subagent back ({@link
   * HookInput#stopHookActive()}); where it does not, the runner keeps a mark.
   */
  boolean reportsRepeatedStop();

  /**
   * Whether the CLI refuses by itself a hook's "ask" that no one can answer (a headless run). Where
   * it does not, the hook must refuse in its place: Gemini CLI 0.61 waits forever for the answer.
   */
  boolean refusesAsksItCannotPut();

  /** Where this CLI keeps the settings of the extension when it is linked rather than copied. */
  Path linkedSettings(Map<String, String> env, String home);

  static HookDialect of(String runtime) {
    return switch (runtime.toLowerCase(Locale.ROOT)) {
      case "qwen" -> new Qwen();
      case "gemini" -> new Gemini();
      default ->
          throw new IllegalArgumentException("unknown runtime '" + runtime + "': qwen or gemini");
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

    @Override
    public boolean reportsRepeatedStop() {
      return true;
    }

    @Override
    public boolean refusesAsksItCannotPut() {
      return true;
    }

    @Override
    public Path linkedSettings(Map<String, String> env, String home) {
      String qwenHome = env.get("QWEN_HOME");
      return (qwenHome != null ? Path.of(qwenHome) : Path.of(home, ".qwen"))
          .resolve("extensions/companion4j/.env");
    }
  }

  /**
   * Gemini CLI: a subagent is the tool {@code invoke_agent}; its answer is the tool's response, and
   * a block replaces that response for the calling model.
   */
  final class Gemini implements HookDialect {
    @Override
    public HookInput read(Map<String, String> in) {
      // The response's texts, however the CLI nested them; null before there is a response.
      StringJoiner response = null;
      for (Map.Entry<String, String> e : in.entrySet()) {
        if (e.getKey().startsWith("tool_response")) {
          response = response == null ? new StringJoiner("\n") : response;
          if (e.getValue() != null) {
            response.add(e.getValue());
          }
        }
      }
      String answer = response == null ? null : response.toString();
      return new HookInput(
          text(in, "hook_event_name"),
          text(in, "session_id"),
          text(in, "cwd"),
          text(in, "tool_input.command"),
          text(in, "tool_input.agent_name"),
          answer,
          false);
    }

    /**
     * The calling model gets this instead of the agent's answer: it is the one that can ask again.
     */
    @Override
    public String retryHandOff() {
      return HandOff.RETRY_CALLER;
    }

    @Override
    public boolean reportsRepeatedStop() {
      return false;
    }

    @Override
    public boolean refusesAsksItCannotPut() {
      return false;
    }

    @Override
    public Path linkedSettings(Map<String, String> env, String home) {
      return Path.of(
          env.getOrDefault("GEMINI_CLI_HOME", home), ".gemini/extensions/companion4j/.env");
    }
  }
}
