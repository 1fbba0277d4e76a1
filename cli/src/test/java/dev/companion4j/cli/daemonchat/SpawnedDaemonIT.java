package dev.companion4j.cli.daemonchat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code serve --daemon spawn} with the real {@code qwen} (0.24.4) and a scripted fake model. */
class SpawnedDaemonIT {
  private static final Duration START = Duration.ofSeconds(90);

  @TempDir Path temp;
  private FakeModelServer model;
  private CliEnvironment env;

  @BeforeEach
  void setUp() throws Exception {
    model = new FakeModelServer();
    env = CliEnvironment.in(temp.resolve("user"));
    String settings = QwenDaemon.settings(model.baseUrl());
    for (Path dir : List.of(env.home().resolve(".qwen"), env.qwenHome())) {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("settings.json"), settings);
    }
  }

  @AfterEach
  void tearDown() {
    model.close();
  }

  @Test
  void theCompanionStartsQwenServeForItsWorkspaceChatsThroughItAndStopsIt() throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path qwen = bin.resolve("qwen");
    Files.writeString(
        qwen,
        "#!/bin/sh\nexec node '"
            + TestPeers.dir().resolve("node_modules/@qwen-code/qwen-code/cli.js")
            + "' \"$@\"\n");
    Files.setPosixFilePermissions(qwen, PosixFilePermissions.fromString("rwx------"));

    CompanionProcess companion =
        CompanionProcess.start(
            env,
            Map.of(
                "PATH",
                bin + ":" + env.variables().get("PATH"),
                "FAKE_MODEL_KEY",
                "sk-fake-test-key"),
            "--daemon",
            "spawn");
    try {
      await().atMost(START).until(() -> state(companion).path("conversation").isObject());
      assertThat(state(companion).path("workspace").asString())
          .isEqualTo(env.workspace().toString());
      List<ProcessHandle> daemons =
          ProcessHandle.of(companion.pid())
              .orElseThrow()
              .descendants()
              .filter(
                  p -> p.info().arguments().map(a -> List.of(a).contains("serve")).orElse(false))
              .toList();
      assertThat(daemons).as("the qwen serve the companion started").isNotEmpty();
      assertThat(daemons)
          .allSatisfy(
              d ->
                  assertThat(d.info().arguments().map(List::of).orElse(List.of()))
                      .as("no token among its arguments")
                      .noneMatch(a -> a.matches("[0-9a-f]{64}")));

      assertThat(companion.post("/chat/prompt", Map.of("text", "say hello")).statusCode())
          .isEqualTo(204);
      await()
          .atMost(START)
          .until(
              () ->
                  state(companion)
                      .path("conversation")
                      .path("entries")
                      .toString()
                      .contains("Hello from " + QwenDaemon.MODEL));

      companion.terminate();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> daemons.stream().noneMatch(ProcessHandle::isAlive));
    } finally {
      companion.close();
    }
  }

  @Test
  void withoutQwenInstalledThePageSaysHowToGetIt() throws Exception {
    Path empty = Files.createDirectories(temp.resolve("no-qwen"));
    try (CompanionProcess companion =
        CompanionProcess.start(
            env, Map.of("PATH", empty + ":/usr/bin:/bin"), "--daemon", "spawn")) {
      await().atMost(START).until(() -> !state(companion).path("problem").asString().isEmpty());
      assertThat(state(companion).path("problem").asString())
          .startsWith(
              "qwen is not installed (not on PATH): install Qwen Code with `npm install -g @qwen-code/qwen-code`");
      assertThat(companion.post("/chat/prompt", Map.of("text", "hello")).body())
          .contains("qwen is not installed");
    }
  }

  private static JsonNode state(CompanionProcess companion) {
    return CompanionProcess.JSON.readTree(companion.get("/chat/state").body());
  }
}
