package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The hook runner's decisions as each CLI reads them; the CLIs themselves are in ExtensionIT. */
class HookMainTest {
  @TempDir Path dir;
  private Map<String, String> env;

  @BeforeEach
  void extensionWithOneAgent() throws Exception {
    Files.createDirectories(dir.resolve("ext/agents"));
    Files.writeString(
        dir.resolve("ext/agents/code_reviewer.md"), "---\nname: code_reviewer\n---\n");
    env =
        Map.of(
            "COMPANION4J_EXTENSION", dir.resolve("ext").toString(),
            "COMPANION4J_STATE", dir.resolve("state").toString(),
            "COMPANION4J_AUTOSTART", "false",
            "TMPDIR", dir.resolve("tmp").toString(),
            "QWEN_HOME", dir.resolve("qwen").toString(),
            "HOME", dir.toString());
  }

  private String run(String runtime, String handler, String stdin) throws Exception {
    return new HookMain(HookDialect.of(runtime), env)
        .run(handler, stdin.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theShellPolicyDeniesInTheFormQwenReads() throws Exception {
    assertThat(
            run(
                "qwen",
                "shell-policy",
                "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"sudo rm -rf /\"}}"))
        .startsWith("{\"decision\":\"deny\",\"reason\":\"Recursive forced deletion");
    assertThat(
            run(
                "qwen",
                "shell-policy",
                "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"git status\"}}"))
        .isEmpty();
  }

  @Test
  void anExtraArgumentNestedFarDeeperThanJacksonsDefaultStillGetsTheDecision() throws Exception {
    String nested = "[".repeat(600) + "]".repeat(600);
    for (String runtime : new String[] {"qwen", "gemini"}) {
      assertThat(
              run(
                  runtime,
                  "shell-policy",
                  "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"rm -rf victim\",\"x\":"
                      + nested
                      + "}}"))
          .startsWith("{\"decision\":\"deny\"");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "not json",
        "{\"tool_input\":{\"command\":\"ls\"",
        "{\"tool_input\":{}}",
        "[]",
        ""
      })
  void theShellPolicyDeniesWhatItCannotRead(String stdin) throws Exception {
    for (String runtime : new String[] {"qwen", "gemini"}) {
      assertDeniedByTheGuard(
          guard(
              runtime,
              "shell-policy",
              new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
              Duration.ofSeconds(10)));
    }
  }

  @Test
  void theShellPolicyDeniesInvalidUtf8AndNestingBeyondItsBound() throws Exception {
    byte[] utf8 =
        "{\"tool_input\":{\"command\":\"ls \u00ff\"}}".getBytes(StandardCharsets.ISO_8859_1);
    assertDeniedByTheGuard(
        guard("qwen", "shell-policy", new ByteArrayInputStream(utf8), Duration.ofSeconds(10)));
    String deep =
        "{\"tool_input\":{\"command\":\"ls\",\"x\":"
            + "[".repeat(200_000)
            + "]".repeat(200_000)
            + "}}";
    assertDeniedByTheGuard(
        guard(
            "qwen",
            "shell-policy",
            new ByteArrayInputStream(deep.getBytes(StandardCharsets.UTF_8)),
            Duration.ofSeconds(10)));
  }

  @Test
  void theShellPolicyDeniesWhenItCannotDecideInTime() throws Exception {
    // A writer that never writes nor closes: the hook waits on its stdin until its own deadline.
    try (PipedOutputStream writer = new PipedOutputStream();
        PipedInputStream stalled = new PipedInputStream(writer)) {
      long start = System.nanoTime();
      Outcome outcome = guard("gemini", "shell-policy", stalled, Duration.ofMillis(300));
      assertDeniedByTheGuard(outcome);
      assertThat(outcome.err()).contains("did not decide within");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void brokenStagedRulesDenyRatherThanLetThrough() throws Exception {
    Files.createDirectories(dir.resolve("ext/lib"));
    Files.writeString(dir.resolve("ext/" + ShellPolicy.STAGED), "{\"rules\": [");
    String stdin =
        "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"git status\"}}";
    assertDeniedByTheGuard(
        guard(
            "qwen",
            "shell-policy",
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            Duration.ofSeconds(10)));
  }

  @Test
  void theGuardPassesTheDecisionThroughAndOtherHooksStillFailOpen() throws Exception {
    String stdin =
        "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"git status\"}}";
    Outcome allowed =
        guard(
            "qwen",
            "shell-policy",
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            Duration.ofSeconds(10));
    assertThat(allowed.exitCode()).isZero();
    assertThat(allowed.out()).isEmpty();
    // A session-start that fails must not block the CLI: exit 1 is the CLIs' non-blocking error.
    Outcome start =
        guard(
            "qwen",
            "session-start",
            new ByteArrayInputStream("not json".getBytes(StandardCharsets.UTF_8)),
            Duration.ofSeconds(10));
    assertThat(start.exitCode()).isEqualTo(1);
  }

  /**
   * Gemini CLI waits forever on a hook's "ask" in a headless run, so the hook must know one: a CLI
   * given a prompt, or with no terminal on its input, is headless; one given -i is not.
   */
  @Test
  void aCliGivenAPromptOrNoTerminalIsHeadlessAndOneAskedToStayInteractiveIsNot() throws Exception {
    Process prompted = new ProcessBuilder("sh", "-c", "sleep 30", "-p").start();
    Process interactive = new ProcessBuilder("sh", "-c", "sleep 30", "-i").start();
    Process piped = new ProcessBuilder("sleep", "30").start();
    try {
      assertThat(HookMain.headless(Optional.of(prompted.toHandle()))).isTrue();
      assertThat(HookMain.headless(Optional.of(piped.toHandle()))).isTrue();
      assertThat(HookMain.headless(Optional.empty())).isTrue();
      assertThat(HookMain.headless(Optional.of(interactive.toHandle()))).isFalse();
    } finally {
      prompted.destroy();
      interactive.destroy();
      piped.destroy();
    }
  }

  private record Outcome(int exitCode, String out, String err) {}

  private Outcome guard(String runtime, String handler, InputStream stdin, Duration limit) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        HookMain.answer(
            new HookMain(HookDialect.of(runtime), env),
            handler,
            stdin,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            limit.toMillis());
    return new Outcome(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * Exit 2 with the reason on stderr: the one answer both CLIs treat as blocking whatever else
   * happened.
   */
  private static void assertDeniedByTheGuard(Outcome outcome) {
    assertThat(outcome.exitCode()).as(outcome.toString()).isEqualTo(2);
    assertThat(outcome.out()).isEmpty();
    assertThat(outcome.err()).contains("Companion4J shell policy").contains("refused");
  }

  @Test
  void qwenSendsAMissingHandOffBackOnceAndThenLetsItThrough() throws Exception {
    String first =
        "{\"hook_event_name\":\"SubagentStop\",\"session_id\":\"s\",\"agent_type\":\"code_reviewer\","
            + "\"last_assistant_message\":\"Looks fine.\",\"stop_hook_active\":false}";
    assertThat(run("qwen", "subagent-stop", first))
        .contains("\"decision\":\"block\"")
        .contains(HandOff.RETRY);
    String second = first.replace("\"stop_hook_active\":false", "\"stop_hook_active\":true");
    assertThat(run("qwen", "subagent-stop", second))
        .doesNotContain("decision")
        .contains(HandOff.LET_THROUGH);
    String complete =
        first.replace("Looks fine.", "## Task Report\\nok\\n## Downstream Context\\nnone");
    assertThat(run("qwen", "subagent-stop", complete)).isEmpty();
  }

  @Test
  void geminiTellsTheCallerOnceThenLetsTheAnswerThroughAndStartsOverAfterwards() throws Exception {
    String stop =
        "{\"hook_event_name\":\"AfterTool\",\"session_id\":\"s\",\"tool_name\":\"invoke_agent\","
            + "\"tool_input\":{\"agent_name\":\"code_reviewer\",\"prompt\":\"p\"},\"tool_response\":{\"llmContent\":[{\"text\":\"Looks fine.\"}]}}";
    assertThat(run("gemini", "subagent-stop", stop))
        .contains("\"decision\":\"block\"")
        .contains(HandOff.RETRY_CALLER);
    assertThat(run("gemini", "subagent-stop", stop))
        .doesNotContain("decision")
        .contains(HandOff.LET_THROUGH);
    assertThat(run("gemini", "subagent-stop", stop)).contains("\"decision\":\"block\"");
  }

  @Test
  void agentsOfOtherExtensionsAreLeftAlone() throws Exception {
    assertThat(
            run(
                "qwen",
                "subagent-stop",
                "{\"hook_event_name\":\"SubagentStop\",\"agent_type\":\"Explore\","
                    + "\"last_assistant_message\":\"no headings\",\"stop_hook_active\":false}"))
        .isEmpty();
    assertThat(
            run(
                "qwen",
                "subagent-stop",
                "{\"hook_event_name\":\"SubagentStop\",\"agent_type\":\"../../etc/passwd\","
                    + "\"last_assistant_message\":\"no headings\",\"stop_hook_active\":false}"))
        .isEmpty();
  }

  @Test
  void theStartSettingIsReadFromTheExtensionsSettingsFileSinceTheCliDoesNotPassIt()
      throws Exception {
    Path launched = dir.resolve("launched");
    Map<String, String> withoutVariable = standInLauncher(launched);

    Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_AUTOSTART=false\n");
    sessionStart(withoutVariable);
    assertThat(launched).doesNotExist();

    Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_AUTOSTART=\n");
    sessionStart(withoutVariable);
    assertThat(launched).exists();
  }

  @Test
  void theLingerSettingReachesTheCompanionAndAValueThatIsNoWholeNumberOfSecondsIsRefused()
      throws Exception {
    Path arguments = dir.resolve("arguments");
    Map<String, String> started = standInLauncher(arguments);

    sessionStart(started);
    assertThat(arguments).content().contains("serve --exit-with-pid ").endsWith(" --linger 1800\n");

    Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_LINGER_SECONDS=120\n");
    sessionStart(started);
    assertThat(arguments).content().endsWith(" --linger 120\n");

    Files.delete(arguments);
    for (String bad : List.of("-5", "10m", "PT30M")) {
      Files.writeString(dir.resolve("ext/.env"), "COMPANION4J_LINGER_SECONDS=" + bad + "\n");
      assertThatThrownBy(() -> sessionStart(started))
          .hasMessage(
              "COMPANION4J_LINGER_SECONDS must be a whole number of seconds from 0, not \""
                  + bad
                  + "\"");
      assertThat(arguments).doesNotExist();
    }
  }

  /**
   * The hook's environment with the start setting unset and a stand-in for the real launcher, which
   * writes its arguments to {@code arguments}, then fails as a companion that cannot start.
   */
  private Map<String, String> standInLauncher(Path arguments) throws Exception {
    Path launcher = dir.resolve("ext/bin/companion4j");
    Files.createDirectories(launcher.getParent());
    Files.writeString(launcher, "#!/bin/sh\necho \"$@\" > '" + arguments + "'\nexit 1\n");
    launcher.toFile().setExecutable(true);
    Map<String, String> started = new java.util.HashMap<>(env);
    started.remove("COMPANION4J_AUTOSTART");
    started.put("COMPANION4J_LAUNCHER", launcher.toString());
    return started;
  }

  private void sessionStart(Map<String, String> environment) throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    String stdin =
        "{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\",\"cwd\":\"" + workspace + "\"}";
    new HookMain(HookDialect.of("qwen"), environment)
        .run("session-start", stdin.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void sessionStartWithNoCompanionAndAutostartOffSaysSoInTheContext() throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    String out =
        run(
            "gemini",
            "session-start",
            "{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\",\"cwd\":\""
                + workspace
                + "\"}");
    assertThat(out)
        .contains("\"hookEventName\":\"SessionStart\"")
        .contains("No IDE companion serves " + workspace);
  }
}
