package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two projects in one tmux server: a {@code companion4j serve} in a window of each project, then
 * the real Qwen Code and Gemini CLI in further windows of the same server in each project. The tmux
 * server is an ancestor of both companions and the process each CLI takes for its IDE, so the files
 * named after it exist once per companion (and Qwen Code's legacy one once for both): each CLI must
 * still reach the companion of its own project.
 */
class TwoProjectsOneTmuxServerIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path temp;

  @Test
  void eachCliConnectsToTheCompanionOfItsOwnProject() throws Exception {
    Path home = Files.createDirectories(temp.resolve("home"));
    Path first = Files.createDirectories(home.resolve("src/first"));
    Path second = Files.createDirectories(home.resolve("src/second"));
    Path bin = Files.createDirectories(temp.resolve("bin"));
    HeadlessCli.Kind.QWEN.installAsCommand(bin);
    HeadlessCli.Kind.GEMINI.installAsCommand(bin);
    Files.createDirectories(temp.resolve("tmp"));
    // Each CLI's account (the fake model's); Qwen Code in the approval mode the README asks for,
    // Gemini CLI with folder trust on, its default.
    Files.createDirectories(home.resolve(".qwen"));
    Files.writeString(
        home.resolve(".qwen/settings.json"),
        "{\"tools\":{\"approvalMode\":\"default\"},"
            + "\"security\":{\"auth\":{\"selectedType\":\"openai\"}},\"model\":{\"name\":\"fake-model\"}}");
    Files.createDirectories(home.resolve(".gemini"));
    Files.writeString(
        home.resolve(".gemini/settings.json"),
        "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");

    try (FakeModelServer model = new FakeModelServer()) {
      Map<String, String> env = CliTerminal.userEnvironment(home, bin, temp.resolve("tmp"), model);
      // Test machines run in containers (/.dockerenv): Gemini CLI would dial host.docker.internal.
      env.put("SSH_CONNECTION", "127.0.0.1 1 127.0.0.1 2");
      env.put("GEMINI_API_KEY", "fake");
      env.put("GOOGLE_GEMINI_BASE_URL", model.geminiBaseUrl());

      try (Tmux server = Tmux.start(CompanionProcess.command("serve"), first, env)) {
        Tmux secondServe =
            server.window("second-serve", CompanionProcess.command("serve"), second, env);
        await()
            .atMost(WAIT)
            .until(
                () -> {
                  String status = status(env, home);
                  return status.contains(first.toString()) && status.contains(second.toString());
                });

        List<Tmux> clis = new ArrayList<>();
        for (Path project : List.of(first, second)) {
          // IDE mode is each CLI's user setting: turned on in the first project, it holds in the
          // second. Both CLIs of a project start at once, as a user opens two windows.
          boolean firstStart = project.equals(first);
          String name = project.getFileName().toString();
          Tmux qwen = server.window("qwen-" + name, List.of("qwen"), project, env);
          Tmux gemini = server.window("gemini-" + name, List.of("gemini"), project, env);
          clis.add(connect(qwen, "Qwen Code", firstStart));
          clis.add(connect(gemini, "Gemini CLI", firstStart));
        }

        String status = status(env, home);
        for (Path project : List.of(first, second)) {
          String line =
              status
                  .lines()
                  .filter(l -> l.contains(" " + project + " "))
                  .findFirst()
                  .orElseThrow(
                      () -> new AssertionError("no companion for " + project + ":\n" + status));
          assertThat(line).as(status).contains("Qwen Code 0.24.4 (pts/", "Gemini CLI 0.61.0 (pts/");
          assertThat(line.split("\\(pts/", -1)).as("exactly two CLIs:\n%s", status).hasSize(3);
        }

        // Everything ends as a user ends it, before the test's folder is removed under it.
        for (Tmux cli : clis) {
          CliTerminal.enter(cli, "/quit", WAIT);
          awaitExit(cli);
        }
        for (Tmux companion : List.of(server, secondServe)) {
          companion.press("C-c");
          awaitExit(companion);
        }
      }
    }
  }

  /**
   * The README's step 4 in one window: Gemini CLI's trust question, and on a CLI's first start No
   * to its offer and IDE mode on; then the CLI's own word on its connection.
   */
  private static Tmux connect(Tmux window, String cli, boolean firstStart) throws Exception {
    try {
      if (cli.equals("Gemini CLI")) {
        CliTerminal.trustTheFolder(window, WAIT);
      }
      if (firstStart) {
        CliTerminal.awaitScreen(window, "Do you want to connect Companion4J to " + cli + "?", WAIT);
        CliTerminal.declineTheOfferAndEnableIde(window, WAIT);
      } else {
        CliTerminal.awaitScreen(window, "Type your message", WAIT);
      }
      CliTerminal.enter(window, "/ide status", WAIT);
      CliTerminal.awaitScreen(window, "Connected to Companion4J", WAIT);
    } catch (AssertionError | org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(cli + " did not connect:\n" + window.screen(), e);
    }
    return window;
  }

  private static void awaitExit(Tmux window) {
    await().atMost(WAIT).until(() -> window.exitStatus() != null);
  }

  private String status(Map<String, String> env, Path cwd) throws Exception {
    JarCommand status = JarCommand.run(CompanionProcess.command("status"), env, cwd, temp);
    return status.stdout();
  }
}
