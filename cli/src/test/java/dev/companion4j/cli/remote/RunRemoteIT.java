package dev.companion4j.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.CliEnvironment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code companion4j run --remote} from the shaded jar: files and variables for the command's
 * lifetime.
 */
class RunRemoteIT {
  private static final String REMOTE = "env companion4j bridge --map /workspaces/app=/home/me/app";

  @TempDir Path temp;

  @Test
  void theCommandSeesTheFilesAndVariablesAndItsExitCodeIsPassedThrough() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put("QWEN_CODE_IDE_SERVER_PORT", "40001");
    // What the CLI would find, and the pid of its parent: the run process.
    String script =
        "cat \"$QWEN_HOME\"/ide/*.lock; echo; cat \"$TMPDIR\"/gemini/ide/gemini-ide-server-*.json; echo; "
            + "echo \"$PPID\"; env | grep '_IDE_' | sort; exit 7";

    JarCommand run =
        JarCommand.run(
            vars, env.workspace(), temp, "run", "--remote", REMOTE, "--", "sh", "-c", script);

    assertThat(run.exitCode()).as(run.stderr()).isEqualTo(7);
    List<String> lines = run.stdout().lines().toList();
    String ppid = lines.get(2);
    JsonNode expected =
        CompanionProcess.JSON.readTree(
            """
        {"workspacePath": "%s",
         "stdio": {"command": "env", "args": ["companion4j", "bridge", "--map", "/workspaces/app=/home/me/app"]},
         "ideInfo": {"name": "companion4j", "displayName": "Companion4J"},
         "ppid": %s}
        """
                .formatted(env.workspace(), ppid));
    assertThat(CompanionProcess.JSON.readTree(lines.get(0))).isEqualTo(expected);
    assertThat(CompanionProcess.JSON.readTree(lines.get(1))).isEqualTo(expected);
    String args = "[\"companion4j\",\"bridge\",\"--map\",\"/workspaces/app=/home/me/app\"]";
    assertThat(lines.subList(3, lines.size()))
        .containsExactly(
            "GEMINI_CLI_IDE_PID=" + ppid,
            "GEMINI_CLI_IDE_SERVER_STDIO_ARGS=" + args,
            "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND=env",
            "GEMINI_CLI_IDE_WORKSPACE_PATH=" + env.workspace(),
            "QWEN_CODE_IDE_SERVER_STDIO_ARGS=" + args,
            "QWEN_CODE_IDE_SERVER_STDIO_COMMAND=env",
            "QWEN_CODE_IDE_WORKSPACE_PATH=" + env.workspace());
    assertThat(announced(env)).as("removed when the command exits").isEmpty();
    assertThat(run.stdout() + run.stderr()).as("no companion starts").doesNotContain("127.0.0.1:");
  }

  @Test
  void sigtermRemovesTheFilesWhileTheCommandRuns() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    List<String> command =
        CompanionProcess.command(
            "run", "--remote", REMOTE, "--", "sh", "-c", "echo started; read line");
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(env.workspace().toFile()).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    Process run = pb.start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("started");
      assertThat(announced(env)).hasSize(2);

      run.destroy();

      assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(announced(env)).isEmpty();
    } finally {
      // Ends the command's read: it keeps the stdin run handed it.
      run.getOutputStream().close();
      run.destroyForcibly();
    }
  }

  private static List<Path> announced(CliEnvironment env) throws Exception {
    List<Path> files = new ArrayList<>();
    for (Path dir : List.of(env.qwenHome().resolve("ide"), env.tmpDir().resolve("gemini/ide"))) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> s = Files.list(dir)) {
          s.forEach(files::add);
        }
      }
    }
    return files;
  }
}
