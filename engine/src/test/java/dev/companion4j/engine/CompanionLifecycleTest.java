package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine following what happens around it: CLIs vanishing, roots changing. */
class CompanionLifecycleTest {
  @TempDir Path temp;

  @Test
  void aKilledCliIsReapedWithItsPendingDiffs() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    RecordingHost host = new RecordingHost(env.workspace());
    try (Companion companion =
        Companion.builder(host)
            .discoveryLocations(DiscoveryLocations.fromEnvironment(env.variables()))
            .keepAliveInterval(Duration.ofMillis(500))
            .idleTimeout(Duration.ofSeconds(1))
            .build()) {
      companion.start();
      CliDriver cli = CliDriver.start(CliDriver.Cli.QWEN, env.workspace(), env.variables());
      assertThat(cli.connect().path("status").asString()).isEqualTo("connected");
      Path file = env.file("a.txt", "a");
      cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "b"));
      await().atMost(Duration.ofSeconds(20)).until(() -> companion.pendingDiffs().size() == 1);
      assertThat(companion.clients()).hasSize(1);

      cli.kill();

      await().atMost(Duration.ofSeconds(20)).until(() -> companion.clients().isEmpty());
      assertThat(companion.pendingDiffs()).isEmpty();
      assertThat(host.closed).extracting(PendingDiff::filePath).containsExactly(file.toString());
    }
  }

  @Test
  void rewritesTheDiscoveryFilesWhenTheRootsChange() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    RecordingHost host = new RecordingHost(env.workspace());
    try (Companion companion =
        Companion.builder(host)
            .discoveryLocations(DiscoveryLocations.fromEnvironment(env.variables()))
            .build()) {
      companion.start();
      Path lock = env.qwenHome().resolve("ide/" + companion.port() + ".lock");
      assertThat(Files.readString(lock)).contains("\"workspacePath\":\"" + env.workspace() + "\"");

      Path second = Files.createDirectories(temp.resolve("second"));
      host.roots = List.of(env.workspace(), second);
      companion.workspaceChanged();

      assertThat(Files.readString(lock))
          .contains("\"workspacePath\":\"" + env.workspace() + File.pathSeparator + second + "\"");
      assertThat(companion.terminalEnvironment())
          .containsEntry("QWEN_CODE_IDE_WORKSPACE_PATH", companion.workspacePath());

      host.roots = List.of();
      companion.workspaceChanged();
      assertThat(Files.readString(lock)).contains("\"workspacePath\":\"\"");
    }
  }

  @Test
  void aCompanionThatCannotWriteItsDiscoveryFilesDoesNotStayUp() throws Exception {
    Path notADirectory = Files.writeString(temp.resolve("qwen-home-is-a-file"), "x");
    Companion companion =
        Companion.builder(new RecordingHost(temp))
            .discoveryLocations(new DiscoveryLocations(temp.resolve("tmp"), notADirectory))
            .build();

    assertThatThrownBy(companion::start).isInstanceOf(java.io.IOException.class);

    assertThat(companion.isRunning()).isFalse();
    try (java.net.Socket socket = new java.net.Socket()) {
      assertThatThrownBy(
              () ->
                  socket.connect(
                      new java.net.InetSocketAddress("127.0.0.1", companion.port()), 1000))
          .isInstanceOf(java.io.IOException.class);
    }
  }
}
