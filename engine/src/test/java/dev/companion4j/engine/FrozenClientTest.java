package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.McpTapClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
 * process) costs its own queue and nothing else: another CLI gets every context update and its
 * diff outcome while the frozen one's buffers fill, and the frozen one is closed within a bound.
 */
class FrozenClientTest {
  private static final String SELECTION = "x".repeat(16 * 1024 - 16);

  @TempDir Path temp;
  Path workspace;
  RecordingHost host;
  Companion companion;

  @BeforeEach
  void start() throws Exception {
    workspace = Files.createDirectories(temp.resolve("ws"));
    host = new RecordingHost(workspace);
    companion = Companion.builder(host)
        .discoveryLocations(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen")))
        .build();
    companion.start();
  }

  @AfterEach
  void stop() {
    companion.close();
  }

  @Test
  void aClientThatNeverReadsStallsNobodyAndIsClosed() throws Exception {
    Path file = Files.writeString(workspace.resolve("a.txt"), "a");
    String frozenId = RawMcp.initialize(companion.port(), companion.authToken());
    try (Socket frozen = new Socket();
        McpTapClient healthy = new McpTapClient(companion.port(), companion.authToken(), "healthy")) {
      frozen.setReceiveBufferSize(1024);
      frozen.connect(new InetSocketAddress("127.0.0.1", companion.port()));
      OutputStream out = frozen.getOutputStream();
      out.write(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + companion.port() + "\r\nAuthorization: Bearer "
          + companion.authToken() + "\r\nAccept: text/event-stream\r\nmcp-session-id: " + frozenId + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = frozen.getInputStream();
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      // From here on the frozen client reads nothing.

      int pushed = 0;
      boolean outcomeChecked = false;
      while (companion.clients().stream().anyMatch(c -> c.id().equals(frozenId))) {
        assertThat(pushed).as("the frozen client was not closed within the bound").isLessThan(600);
        String selection = SELECTION + String.format("%016d", pushed);
        companion.editorEvent(new EditorEvent.SelectionChanged(file, selection));
        await().atMost(Duration.ofSeconds(10)).until(() -> lastSelection(healthy), selection::equals);
        if (!outcomeChecked && pushed == 50) {
          healthy.call("openDiff", Map.of("filePath", file.toString(), "newContent", "b"));
          DiffId id = host.shown.get(host.shown.size() - 1).id();
          assertThat(companion.acceptDiff(id, null)).isInstanceOf(AnswerResult.Sent.class);
          await().atMost(Duration.ofSeconds(10)).until(() -> !healthy.received("ide/diffAccepted").isEmpty());
          outcomeChecked = true;
        }
        pushed++;
      }
      assertThat(outcomeChecked).as("the frozen client lived long enough to hold up an outcome").isTrue();
      assertThat(companion.clients()).extracting(ConnectedClient::name).containsExactly("healthy");
    }
  }

  private static String lastSelection(McpTapClient client) {
    List<McpTapClient.Received> updates = client.received("ide/contextUpdate");
    if (updates.isEmpty()) {
      return null;
    }
    Object state = updates.get(updates.size() - 1).params().get("workspaceState");
    if (!(state instanceof Map<?, ?> workspace) || !(workspace.get("openFiles") instanceof List<?> files) || files.isEmpty()) {
      return null;
    }
    return files.get(0) instanceof Map<?, ?> active ? Objects.toString(active.get("selectedText"), null) : null;
  }
}
