package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.McpTapClient;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CLI that opens its notification stream and then never reads (a suspended terminal, a hung
 * process) costs its own queue and nothing else: another CLI gets every context update and its diff
 * outcome while the frozen one's buffers fill, and the frozen one is closed within a bound.
 */
class FrozenClientTest {
  private static final String SELECTION = "x".repeat(16 * 1024 - 16);

  @TempDir Path temp;
  CompanionFixture fixture;

  @BeforeEach
  void start() throws Exception {
    fixture = CompanionFixture.start(temp);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void aClientThatNeverReadsStallsNobodyAndIsClosed() throws Exception {
    Companion companion = fixture.companion();
    RecordingHost host = fixture.host();
    McpTapClient healthy = fixture.client();
    Path file = Files.writeString(fixture.workspace().resolve("a.txt"), "a");
    String frozenId = RawMcp.initialize(companion.port(), companion.authToken());
    try (Socket frozen = new Socket()) {
      frozen.setReceiveBufferSize(1024);
      assertThat(RawMcp.openStream(frozen, companion.port(), companion.authToken(), frozenId))
          .isEqualTo("HTTP/1.1 200");
      // From here on the frozen client reads nothing.

      int pushed = 0;
      boolean outcomeChecked = false;
      while (companion.clients().stream().anyMatch(c -> c.id().equals(frozenId))) {
        assertThat(pushed).as("the frozen client was not closed within the bound").isLessThan(600);
        String selection = SELECTION + String.format("%016d", pushed);
        companion.editorEvent(new EditorEvent.SelectionChanged(file, selection));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> lastSelection(healthy), selection::equals);
        if (!outcomeChecked && pushed == 50) {
          healthy.call("openDiff", Map.of("filePath", file.toString(), "newContent", "b"));
          DiffId id = host.shown.get(host.shown.size() - 1).id();
          assertThat(companion.acceptDiff(id, null)).isInstanceOf(AnswerResult.Sent.class);
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> !healthy.received("ide/diffAccepted").isEmpty());
          outcomeChecked = true;
        }
        pushed++;
      }
      assertThat(outcomeChecked)
          .as("the frozen client lived long enough to hold up an outcome")
          .isTrue();
      assertThat(companion.clients())
          .extracting(ConnectedClient::name)
          .containsExactly("test-client");
    }
  }

  private static String lastSelection(McpTapClient client) {
    List<McpTapClient.Received> updates = client.received("ide/contextUpdate");
    if (updates.isEmpty()) {
      return null;
    }
    Object state = updates.get(updates.size() - 1).params().get("workspaceState");
    if (!(state instanceof Map<?, ?> workspace)
        || !(workspace.get("openFiles") instanceof List<?> files)
        || files.isEmpty()) {
      return null;
    }
    return files.get(0) instanceof Map<?, ?> active
        ? Objects.toString(active.get("selectedText"), null)
        : null;
  }
}
