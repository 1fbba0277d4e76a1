package dev.companion4j.extension.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.extension.hook.ShellCorpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.toml.TomlMapper;

/** What each CLI's configuration makes of the one source. */
class ExtensionGeneratorTest {
  private final ExtensionGenerator generator =
      new ExtensionGenerator(Path.of("source").toAbsolutePath());

  private Map<String, String> files(String runtime) {
    RuntimeConfig config =
        generator.runtimes().stream()
            .filter(r -> r.runtime().equals(runtime))
            .findFirst()
            .orElseThrow();
    SortedMap<String, byte[]> files = generator.generate(config);
    return files.entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, e -> new String(e.getValue(), StandardCharsets.UTF_8)));
  }

  @Test
  void qwenGetsItsManifestHooksFileToolNamesAndAShellPolicyHook() {
    Map<String, String> qwen = files("qwen");
    assertThat(qwen)
        .containsKeys(
            "qwen-extension.json",
            "QWEN.md",
            "hooks/hooks.json",
            "bin/companion4j",
            "commands/ide/status.toml")
        .doesNotContainKey("policies/companion4j.toml");
    assertThat(qwen.get("qwen-extension.json"))
        .contains("\"hooks\" : \"hooks/hooks.json\"")
        .contains("\"COMPANION4J_RUNTIME\" : \"qwen\"");
    assertThat(qwen.get("hooks/hooks.json"))
        .contains("\"${CLAUDE_PLUGIN_ROOT}/bin/companion4j\\\" hook qwen shell-policy")
        .contains(
            "\"PreToolUse\"", "\"SubagentStop\"", "\"matcher\" : \"^(code_reviewer|test_writer)$\"")
        .doesNotContain("${extensionPath}");
    assertThat(qwen.get("agents/test_writer.md"))
        .contains("maxTurns: 25", "- edit", "- mcp__companion4j__ide_status")
        .doesNotContain("kind:", "- replace", "temperature", "${tool:");
    assertThat(qwen.get("QWEN.md")).contains("`mcp__companion4j__ide_status`");
  }

  @Test
  void geminiGetsTheShellPolicyHookPoliciesToolEventsForSubagentsAndItsFrontmatter() {
    Map<String, String> gemini = files("gemini");
    assertThat(gemini.get("gemini-extension.json"))
        .doesNotContain("\"hooks\"")
        .contains("\"COMPANION4J_RUNTIME\" : \"gemini\"");
    assertThat(gemini.get("hooks/hooks.json"))
        .startsWith("{\n  \"hooks\" : {")
        .contains("\"${extensionPath}${/}bin/companion4j\\\" hook gemini subagent-stop")
        .contains("\"AfterTool\"", "\"matcher\" : \"invoke_agent\"", "\"timeout\" : 10000")
        .contains(
            "\"matcher\" : \"^run_shell_command$\"",
            "\"${extensionPath}${/}bin/companion4j\\\" hook gemini shell-policy")
        .doesNotContain("PreToolUse", "SubagentStop");
    assertThat(gemini.get("agents/test_writer.md"))
        .startsWith("---\nkind: local\nname: test_writer\n")
        .contains(
            "max_turns: 25",
            "timeout_mins: 10",
            "temperature: 0.2",
            "- replace",
            "- mcp_companion4j_ide_status");
    assertThat(gemini.get("policies/companion4j.toml"))
        .contains("decision = 'deny', priority = 950", "denyMessage")
        .doesNotContain("ask_user");
  }

  /**
   * Gemini CLI's second layer: each pattern as its engine reads it (after {@code "command":"} in
   * the JSON of the arguments, refused when a group is followed by a quantifier) catches the
   * JSON-escaped spellings and never refuses what the hook lets through.
   */
  @Test
  void geminiPolicyPatternsLoadThereCatchEscapedWhiteSpaceAndNeverRefuseWhatTheHookAllows() {
    TomlMapper toml = new TomlMapper();
    List<Pattern> patterns = new ArrayList<>();
    for (JsonNode rule :
        toml.readTree(files("gemini").get("policies/companion4j.toml")).path("rule")) {
      String regex = rule.path("commandRegex").asString();
      // Gemini CLI's own test for nested quantifiers (isSafeRegExp), which drops a rule silently.
      assertThat(Pattern.compile("\\([^)]*[*+?{].*\\)[*+?{]").matcher(regex).find())
          .as(regex)
          .isFalse();
      patterns.add(Pattern.compile("\"command\":\"" + regex));
    }
    assertThat(patterns).hasSize(4);
    for (String refused :
        List.of(
            "rm -rf x",
            "rm\t-rf x",
            "cd a && rm\t-fr b",
            "sudo rm -rf /",
            "git reset\t--hard",
            "git checkout -- a",
            "git clean -fd",
            "ls; git clean -xfd")) {
      assertThat(patterns).as(refused).anyMatch(p -> p.matcher(arguments(refused)).find());
    }
    for (String allowed : ShellCorpus.of("allow")) {
      assertThat(patterns).as(allowed).noneMatch(p -> p.matcher(arguments(allowed)).find());
    }
  }

  /** The tool's arguments as Gemini CLI stringifies them for its policy engine. */
  private static String arguments(String command) {
    return JsonMapper.shared().writeValueAsString(Map.of("command", command));
  }
}
