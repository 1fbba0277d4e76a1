package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /ide/status}, and how the user's own tools find the companion to ask. */
class StatusRouteTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void answersTheEditorsStateToTheTokenOnly(@TempDir Path temp) throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      Path file = Files.writeString(f.workspace().resolve("A.java"), "class A {}\n");
      f.companion().editorEvent(new EditorEvent.FileFocused(file));
      f.companion().editorEvent(new EditorEvent.CursorMoved(file, 1, 7));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> f.companion().status().activeFile() != null);

      HttpResponse<String> anonymous = get(f, null);
      assertThat(anonymous.statusCode()).isEqualTo(401);
      HttpResponse<String> ok = get(f, f.companion().authToken());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body())
          .contains("\"activeFile\":{\"path\":\"" + file + "\",\"line\":1,\"character\":7")
          .contains("\"workspaceRoots\":[\"" + f.workspace().toRealPath() + "\"]")
          .contains("\"port\":" + f.companion().port());
      HttpResponse<String> post =
          http.send(
              request(f, f.companion().authToken())
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void aHostCannotTakeTheCompanionsOwnRoutes(@TempDir Path temp) {
    Companion.Builder builder = Companion.builder(new RecordingHost(temp));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> builder.route("/ide/status", new jakarta.servlet.http.HttpServlet() {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/ide/");
  }

  @Test
  void theScannerFindsTheCompanionServingAFolderWithItsTokenKeptOutOfToString(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      DiscoveryScanner scanner =
          new DiscoveryScanner(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen")));
      Path inside = Files.createDirectories(f.workspace().resolve("src/main"));
      List<CompanionAddress> found = scanner.serving(inside);
      assertThat(found)
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.port()).isEqualTo(f.companion().port());
                assertThat(c.authToken()).isEqualTo(f.companion().authToken());
                assertThat(c.toString()).doesNotContain(f.companion().authToken());
              });
      assertThat(scanner.serving(Files.createDirectories(temp.resolve("elsewhere")))).isEmpty();
    }
  }

  private HttpResponse<String> get(CompanionFixture f, String token) throws Exception {
    return http.send(request(f, token).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder request(CompanionFixture f, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + f.companion().port() + CompanionStatus.PATH));
    return token == null ? b : b.header("Authorization", "Bearer " + token);
  }
}
