package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hook runner's decisions as each CLI reads them; the CLIs themselves are in ExtensionIT. */
class HookMainTest {
  @TempDir Path dir;
  private Map<String, String> env;

  @BeforeEach
  void extensionWithOneAgent() throws Exception {
    Files.createDirectories(dir.resolve("ext/agents"));
    Files.writeString(dir.resolve("ext/agents/code_reviewer.md"), "---\nname: code_reviewer\n---\n");
    env = Map.of(
        "COMPANION4J_EXTENSION", dir.resolve("ext").toString(),
        "COMPANION4J_STATE", dir.resolve("state").toString(),
        "COMPANION4J_AUTOSTART", "false",
        "TMPDIR", dir.resolve("tmp").toString(),
        "QWEN_HOME", dir.resolve("qwen").toString(),
        "HOME", dir.toString());
  }

  private String run(String runtime, String handler, String stdin) throws Exception {
    return new HookMain(HookDialect.of(runtime), env).run(handler, stdin.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theShellPolicyDeniesInTheFormQwenReads() throws Exception {
    assertThat(run("qwen", "shell-policy", "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"sudo rm -rf /\"}}"))
        .startsWith("{\"decision\":\"deny\",\"reason\":\"Recursive forced deletion");
    assertThat(run("qwen", "shell-policy", "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"git status\"}}"))
        .isEmpty();
  }

  @Test
  void qwenSendsAMissingHandOffBackOnceAndThenLetsItThrough() throws Exception {
    String first = "{\"hook_event_name\":\"SubagentStop\",\"session_id\":\"s\",\"agent_type\":\"code_reviewer\","
        + "\"last_assistant_message\":\"Looks fine.\",\"stop_hook_active\":false}";
    assertThat(run("qwen", "subagent-stop", first)).contains("\"decision\":\"block\"").contains(HandOff.RETRY);
    String second = first.replace("\"stop_hook_active\":false", "\"stop_hook_active\":true");
    assertThat(run("qwen", "subagent-stop", second)).doesNotContain("decision").contains(HandOff.LET_THROUGH);
    String complete = first.replace("Looks fine.", "## Task Report\\nok\\n## Downstream Context\\nnone");
    assertThat(run("qwen", "subagent-stop", complete)).isEmpty();
  }

  @Test
  void geminiTellsTheCallerOnceThenLetsTheAnswerThroughAndStartsOverAfterwards() throws Exception {
    String stop = "{\"hook_event_name\":\"AfterTool\",\"session_id\":\"s\",\"tool_name\":\"invoke_agent\","
        + "\"tool_input\":{\"agent_name\":\"code_reviewer\",\"prompt\":\"p\"},\"tool_response\":{\"llmContent\":[{\"text\":\"Looks fine.\"}]}}";
    assertThat(run("gemini", "subagent-stop", stop)).contains("\"decision\":\"block\"").contains(HandOff.RETRY_CALLER);
    assertThat(run("gemini", "subagent-stop", stop)).doesNotContain("decision").contains(HandOff.LET_THROUGH);
    assertThat(run("gemini", "subagent-stop", stop)).contains("\"decision\":\"block\"");
  }

  @Test
  void agentsOfOtherExtensionsAreLeftAlone() throws Exception {
    assertThat(run("qwen", "subagent-stop", "{\"hook_event_name\":\"SubagentStop\",\"agent_type\":\"Explore\","
        + "\"last_assistant_message\":\"no headings\",\"stop_hook_active\":false}")).isEmpty();
    assertThat(run("qwen", "subagent-stop", "{\"hook_event_name\":\"SubagentStop\",\"agent_type\":\"../../etc/passwd\","
        + "\"last_assistant_message\":\"no headings\",\"stop_hook_active\":false}")).isEmpty();
  }

  @Test
  void theStartSettingIsReadFromTheExtensionsSettingsFileSinceTheCliDoesNotPassIt() throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    Path marker = dir.resolve("launched");
    Path launcher = dir.resolve("ext/bin/companion4j");
    Files.createDirectories(launcher.getParent());
    // Stands in for the real launcher: records that it ran, then fails as a companion that cannot start.
    Files.writeString(launcher, "#!/bin/sh\ntouch '" + marker + "'\nexit 1\n");
    launcher.toFile().setExecutable(true);
    Map<String, String> withoutVariable = new java.util.HashMap<>(env);
    withoutVariable.remove("COMPANION4J_AUTOSTART");
    withoutVariable.put("COMPANION4J_LAUNCHER", launcher.toString());
    String stdin = "{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\",\"cwd\":\"" + workspace + "\"}";

    Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_AUTOSTART=false\n");
    new HookMain(HookDialect.of("qwen"), withoutVariable).run("session-start", stdin.getBytes(StandardCharsets.UTF_8));
    assertThat(marker).doesNotExist();

    Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_AUTOSTART=\n");
    new HookMain(HookDialect.of("qwen"), withoutVariable).run("session-start", stdin.getBytes(StandardCharsets.UTF_8));
    assertThat(marker).exists();
  }

  @Test
  void sessionStartWithNoCompanionAndAutostartOffSaysSoInTheContext() throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    String out = run("gemini", "session-start", "{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\",\"cwd\":\"" + workspace + "\"}");
    assertThat(out).contains("\"hookEventName\":\"SessionStart\"").contains("No IDE companion serves " + workspace);
  }
}
