package dev.companion4j.extension.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What each CLI's configuration makes of the one source. */
class ExtensionGeneratorTest {
  private final ExtensionGenerator generator = new ExtensionGenerator(Path.of("source").toAbsolutePath());

  private Map<String, String> files(String runtime) {
    RuntimeConfig config = generator.runtimes().stream().filter(r -> r.runtime().equals(runtime)).findFirst().orElseThrow();
    SortedMap<String, byte[]> files = generator.generate(config);
    return files.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> new String(e.getValue(), StandardCharsets.UTF_8)));
  }

  @Test
  void qwenGetsItsManifestHooksFileToolNamesAndAShellPolicyHook() {
    Map<String, String> qwen = files("qwen");
    assertThat(qwen).containsKeys("qwen-extension.json", "QWEN.md", "hooks/hooks.json", "bin/companion4j", "commands/ide/status.toml")
        .doesNotContainKey("policies/companion4j.toml");
    assertThat(qwen.get("qwen-extension.json")).contains("\"hooks\" : \"hooks/hooks.json\"").contains("\"COMPANION4J_RUNTIME\" : \"qwen\"");
    assertThat(qwen.get("hooks/hooks.json"))
        .contains("\"${CLAUDE_PLUGIN_ROOT}/bin/companion4j\\\" hook qwen shell-policy")
        .contains("\"PreToolUse\"", "\"SubagentStop\"", "\"matcher\" : \"^(code_reviewer|test_writer)$\"")
        .doesNotContain("${extensionPath}");
    assertThat(qwen.get("agents/test_writer.md"))
        .contains("maxTurns: 25", "- edit", "- mcp__companion4j__ide_status")
        .doesNotContain("kind:", "- replace", "temperature", "${tool:");
    assertThat(qwen.get("QWEN.md")).contains("`mcp__companion4j__ide_status`");
  }

  @Test
  void geminiGetsPoliciesToolEventsForSubagentsAndItsFrontmatter() {
    Map<String, String> gemini = files("gemini");
    assertThat(gemini.get("gemini-extension.json")).doesNotContain("\"hooks\"").contains("\"COMPANION4J_RUNTIME\" : \"gemini\"");
    assertThat(gemini.get("hooks/hooks.json"))
        .startsWith("{\n  \"hooks\" : {")
        .contains("\"${extensionPath}${/}bin/companion4j\\\" hook gemini subagent-stop")
        .contains("\"AfterTool\"", "\"matcher\" : \"invoke_agent\"", "\"timeout\" : 10000")
        .doesNotContain("PreToolUse", "shell-policy", "SubagentStop");
    assertThat(gemini.get("agents/test_writer.md"))
        .startsWith("---\nkind: local\nname: test_writer\n")
        .contains("max_turns: 25", "timeout_mins: 10", "temperature: 0.2", "- replace", "- mcp_companion4j_ide_status");
    assertThat(gemini.get("policies/companion4j.toml"))
        .contains("decision = 'deny', priority = 950", "decision = 'ask_user', priority = 850", "commandRegex = '.*\\brm\\s+");
  }
}
