package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.McpTapClient;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CLIs that leave without a goodbye: the engine notices at once and their proposals end. */
class DepartureTest {
  @TempDir Path temp;
  CompanionFixture fixture;
  Companion companion;
  final List<ConnectedClient> departed = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    fixture =
        CompanionFixture.start(
            temp,
            new CompanionListener() {
              @Override
              public void clientDisconnected(ConnectedClient client) {
                departed.add(client);
              }
            });
    companion = fixture.companion();
    // The fixture's own client is not part of these stories.
    fixture.client().close();
    await().atMost(Duration.ofSeconds(3)).until(() -> companion.clients().isEmpty());
    departed.clear();
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void aClientThatClosesItsStreamConnectionLeavesAtOnceAndItsDiffEndsAsGone() throws Exception {
    RecordingHost host = fixture.host();
    Path file = Files.writeString(fixture.workspace().resolve("a.txt"), "a");
    String sessionId;
    try (McpTapClient cli = new McpTapClient(companion.port(), companion.authToken(), "leaver")) {
      cli.call("openDiff", java.util.Map.of("filePath", file.toString(), "newContent", "b"));
      sessionId = companion.clients().get(0).id();
    }
    // The SDK client said goodbye with DELETE; a raw one that just hangs up follows.
    await().atMost(Duration.ofSeconds(3)).until(() -> companion.clients().isEmpty());
    DiffId id = host.shown.get(0).id();
    assertThat(companion.acceptDiff(id, null))
        .isEqualTo(new AnswerResult.Ended(new DiffOutcome.ClientGone()));
    assertThat(departed).extracting(ConnectedClient::id).containsExactly(sessionId);
  }

  @Test
  void aRawClientThatHangsUpIsNoticedBeforeAnyHeartbeat() throws Exception {
    String session = RawMcp.initialize(companion.port(), companion.authToken());
    try (Socket stream = new Socket()) {
      assertThat(RawMcp.openStream(stream, companion.port(), companion.authToken(), session))
          .isEqualTo("HTTP/1.1 200");
      assertThat(companion.clients()).hasSize(1);
    }
    // Heartbeats come every 5 s; this must not wait for one.
    await().atMost(Duration.ofSeconds(2)).until(() -> companion.clients().isEmpty());
  }
}
