package dev.companion4j.extension.ide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionAddress;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How {@link IdeLink#status(CompanionAddress)} reads a companion's {@code GET /ide/status} answer:
 * an older companion's answer as the record defines it, anything malformed as an {@link
 * IOException} (which {@code companion4j status} reports and a hook takes for no companion), never
 * another exception.
 */
class StatusAnswerTest {
  private HttpServer server;
  private volatile byte[] answer;

  private CompanionAddress companionAnswering(String body) throws IOException {
    answer = body.getBytes(StandardCharsets.UTF_8);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        CompanionStatus.PATH,
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
    return new CompanionAddress(
        server.getAddress().getPort(), "token", "/w", "Vim", Path.of("/nowhere"), Optional.empty());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void anOlderCompanionsStatusReadsAsTheRecordDefinesIt() throws Exception {
    CompanionAddress companion =
        companionAnswering(
            "{\"ide\":{\"name\":\"vim\",\"displayName\":\"Vim\",\"icon\":\"v\"},\"port\":7,"
                + "\"workspaceRoots\":[\"/w\"],\"activeFile\":{\"path\":\"/w/A.java\",\"line\":3,"
                + "\"character\":4,\"selectedText\":null},\"openFiles\":[\"/w/A.java\"],"
                + "\"clients\":[{\"id\":\"c1\",\"name\":\"qwen-code\",\"version\":\"0.1\","
                + "\"pid\":12,\"later\":{\"nested\":[1,2]}}],"
                + "\"pendingDiffs\":[{\"id\":\"d1\",\"filePath\":\"/w/A.java\",\"clientId\":\"c1\","
                + "\"clientName\":null,\"openedAt\":\"2026-01-01T00:00:00Z\"}],\"unknown\":true}");

    CompanionStatus status = IdeLink.status(companion);

    assertThat(status.ide().displayName()).isEqualTo("Vim");
    assertThat(status.port()).isEqualTo(7);
    assertThat(status.workspaceRoots()).containsExactly("/w");
    assertThat(status.activeFile())
        .isEqualTo(new CompanionStatus.ActiveFile("/w/A.java", 3, 4, null));
    assertThat(status.features()).isEmpty();
    assertThat(status.clients())
        .containsExactly(
            new CompanionStatus.Client(
                "c1", "qwen-code", "0.1", "qwen-code 0.1", "", 12, "", null));
    assertThat(status.pendingDiffs())
        .containsExactly(
            new CompanionStatus.Diff("d1", "/w/A.java", "c1", null, "2026-01-01T00:00:00Z"));
  }

  @Test
  void aStatusWithoutItsRootsIsAnIoException() throws Exception {
    CompanionAddress companion =
        companionAnswering(
            "{\"ide\":{\"name\":\"vim\",\"displayName\":\"Vim\"},\"port\":7,\"openFiles\":[],"
                + "\"clients\":[],\"pendingDiffs\":[]}");

    assertThatThrownBy(() -> IdeLink.status(companion)).isInstanceOf(IOException.class);
  }

  @Test
  void aStatusThatIsNotJsonIsAnIoException() throws Exception {
    for (String body : List.of("<html>not json</html>", "{\"ide\":", "")) {
      CompanionAddress companion = companionAnswering(body);

      assertThatThrownBy(() -> IdeLink.status(companion)).as(body).isInstanceOf(IOException.class);
      stop();
    }
  }
}
