package dev.companion4j.daemon.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starting and stopping the daemon process, with a stand-in for {@code qwen} that never says it
 * listens.
 */
class SpawnedDaemonTest {
  @TempDir Path temp;

  @Test
  void aStopWhileTheDaemonStartsIsNotHeldUpByTheStart() throws Exception {
    Path qwen =
        Files.writeString(temp.resolve("qwen"), "#!/bin/sh\necho starting\nexec sleep 120\n");
    Files.setPosixFilePermissions(qwen, PosixFilePermissions.fromString("rwx------"));
    SpawnedDaemon daemon =
        new SpawnedDaemon(qwen.toString(), temp, Map.of("PATH", System.getenv("PATH")));
    CompletableFuture<Object> starting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return daemon.client();
              } catch (IOException e) {
                return e;
              }
            });
    // The start is under way once the stand-in runs; a close from now on must not wait for it.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ProcessHandle.current()
                    .descendants()
                    .anyMatch(p -> p.info().commandLine().orElse("").contains("sleep 120")));

    CompletableFuture<Void> closed = CompletableFuture.runAsync(daemon::close);

    await().atMost(Duration.ofSeconds(10)).until(closed::isDone);
    await().atMost(Duration.ofSeconds(10)).until(starting::isDone);
    assertThat(starting.join()).isInstanceOf(IOException.class);
    assertThat(
            ProcessHandle.current()
                .descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("sleep 120")))
        .isEmpty();
    assertThatThrownBy(daemon::client)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("stopping");
  }
}
