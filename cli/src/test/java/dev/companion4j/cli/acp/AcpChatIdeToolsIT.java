package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.chat.TerminalScreen;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code companion4j chat --agent qwen} in a pseudo-terminal (tmux) in a folder a companion serves:
 * the agent gets that companion's IDE tools, and its {@code get_diagnostics} answers what the
 * editor reported. The real {@code qwen} on the PATH, in a home of its own with default settings,
 * against the fake model.
 */
class AcpChatIdeToolsIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private FakeModelServer model;
  private CompanionProcess companion;
  private Tmux terminal;

  @AfterEach
  void stop() throws Exception {
    try (FakeModelServer m = model;
        Tmux t = terminal;
        CompanionProcess c = companion) {
      if (m != null) {
        m.openGate();
      }
    }
  }

  @Test
  void theTerminalChatsAgentGetsTheIdeToolsOfTheCompanionServingItsFolder() throws Exception {
    model = new FakeModelServer();
    HeadlessCli qwen = new HeadlessCli(HeadlessCli.Kind.QWEN, CliEnvironment.in(dir), model);
    Path bin = Files.createDirectories(dir.resolve("bin"));
    HeadlessCli.Kind.QWEN.installAsCommand(bin);
    Map<String, String> env = new LinkedHashMap<>(qwen.variables());
    env.put("PATH", bin + ":" + env.get("PATH"));
    companion = CompanionProcess.start(qwen.env, env);
    Path broken = ServedAgent.reportJavacError(companion, qwen.env.workspace());
    Path jar = Path.of(System.getProperty("companion4j.repoRoot"), "cli/target/companion4j.jar");
    String java = ProcessHandle.current().info().command().orElse("java");
    terminal =
        Tmux.start(
            List.of(java, "-jar", jar.toString(), "chat", "--agent", "qwen"),
            qwen.env.workspace(),
            env);
    TerminalScreen screen = new TerminalScreen(terminal, LIMIT);
    screen.awaitScreen("over ACP", "> ");

    // Qwen Code 0.24.4 connects a session's MCP servers in the background and its ACP prompts do
    // not wait for them: asked in the first moment, it has no such tool yet, and is asked again.
    long[] allowed = {0};
    for (int asked = 1; screen.count("The editor reports 1 error.") == 0; asked++) {
      assertThat(asked)
          .as("asked again and again; the terminal shows:\n" + terminal.screen())
          .isLessThanOrEqualTo(5);
      long said = screen.count("Tool said:");
      long done = screen.count("[done]");
      screen.send(
          "What is wrong? [[call tool_call {\"name\":\"mcp__companion4j__get_diagnostics\","
              + "\"arguments\":{}}]]");
      screen.awaitThat(
          "the model repeated what the tool gave it, and the turn is done",
          () -> {
            // In mode default the agent may ask before an MCP tool runs; the user allows it.
            if (screen.count("Allow? number") > allowed[0]) {
              allowed[0]++;
              screen.send("o");
            }
            return screen.count("Tool said:") > said && screen.count("[done]") > done;
          });
    }
    screen.awaitScreen(
        "Tool said:",
        broken + " (1 error):",
        "line 3, column 13: error: " + ServedAgent.JAVAC_ERROR);

    // Leaving the chat stops the agent before the folder goes.
    screen.send("/quit");
    screen.awaitThat("the chat exited", () -> terminal.exitStatus() != null);
  }
}
