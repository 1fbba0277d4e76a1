package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start, stop, crash and the commands around them, as a user meets them. */
class LifecycleIT {
  @TempDir Path temp;

  @Test
  void sigtermRemovesTheDiscoveryFiles() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    CompanionProcess companion = CompanionProcess.start(env);
    Path lock = companion.qwenLockFile();
    Path gemini = companion.geminiFile();
    assertThat(lock).exists();
    assertThat(gemini).exists();

    companion.terminate();

    assertThat(lock).doesNotExist();
    assertThat(gemini).doesNotExist();
  }

  @Test
  void theNextCompanionCleansUpAfterAKilledOne() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    CompanionProcess crashed = CompanionProcess.start(env);
    Path staleLock = crashed.qwenLockFile();
    Path staleGemini = crashed.geminiFile();
    crashed.kill();
    assertThat(staleLock).as("SIGKILL runs no cleanup").exists();

    String status = runCommand(env, "status");
    assertThat(status).contains(Integer.toString(crashed.port())).contains("stale");

    try (CompanionProcess next = CompanionProcess.start(env)) {
      // Cleaned in the background right after start-up.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !Files.exists(staleLock) && !Files.exists(staleGemini));
      assertThat(next.qwenLockFile()).exists();
      assertThat(runCommand(env, "status")).contains(next.port() + " ").contains("alive");
    }
  }

  @Test
  void runSetsTheTerminalVariablesAndPassesTheExitCodeThrough() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path out = temp.resolve("seen.txt");
    String script =
        "printf '%s|%s|%s|%s' \"$QWEN_CODE_IDE_SERVER_PORT\" \"$QWEN_CODE_IDE_WORKSPACE_PATH\" "
            + "\"$GEMINI_CLI_IDE_SERVER_PORT\" \"${#GEMINI_CLI_IDE_AUTH_TOKEN}\" > "
            + out
            + "; "
            + "test -f \"$QWEN_HOME/ide/$QWEN_CODE_IDE_SERVER_PORT.lock\" || exit 99; exit 7";

    Process run =
        start(
            env,
            List.of("run", "--workspace", env.workspace().toString(), "--", "sh", "-c", script));
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(run.exitValue()).isEqualTo(7);
    String[] seen = Files.readString(out).split("\\|");
    assertThat(seen[0]).matches("\\d+").isEqualTo(seen[2]);
    assertThat(seen[1]).isEqualTo(env.workspace().toString());
    assertThat(seen[3]).isEqualTo("64");
    try (var files = Files.list(env.qwenHome().resolve("ide"))) {
      assertThat(files).as("removed when the command exits").isEmpty();
    }
  }

  @Test
  void serveRefusesAWorkspaceThatIsNotADirectory() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Process serve = start(env, List.of("serve", "--workspace", temp.resolve("missing").toString()));
    assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(serve.exitValue()).isEqualTo(2);
    assertThat(new String(serve.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("--workspace is not a directory");
  }

  @Test
  void serveTakesAsManyClisAsItIsToldAndRefusesTheNext() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (CompanionProcess companion = CompanionProcess.start(env, "--max-clis", "1");
        McpTapClient first = new McpTapClient(companion.port(), companion.token(), "first")) {
      assertThatThrownBy(() -> new McpTapClient(companion.port(), companion.token(), "second"))
          .hasStackTraceContaining("503");
      assertThat(first.client.listTools().tools()).isNotEmpty();
    }
  }

  @Test
  void serveRefusesACliCapOutOfRange() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Process serve = start(env, List.of("serve", "--max-clis", "0"));
    assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(serve.exitValue()).isEqualTo(2);
    assertThat(new String(serve.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("--max-clis must be from 1 to 1024, not 0");
  }

  private static Process start(CliEnvironment env, List<String> args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-jar",
                CompanionProcess.jar().toString()));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(env.workspace().toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    return pb.start();
  }

  private static String runCommand(CliEnvironment env, String... args) throws Exception {
    Process p = start(env, List.of(args));
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
