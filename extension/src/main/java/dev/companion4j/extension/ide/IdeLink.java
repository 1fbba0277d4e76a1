package dev.companion4j.extension.ide;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's way to the companion that serves a workspace: found through the discovery files
 * (this user's only), asked over loopback with the token the file holds. The token goes into the
 * request's header and nowhere else.
 */
public final class IdeLink {
  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final DiscoveryScanner scanner;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  public IdeLink(DiscoveryLocations locations) {
    this.scanner = new DiscoveryScanner(locations);
  }

  /** The companions serving {@code workspace}, the most recently started first. */
  public List<CompanionAddress> serving(Path workspace) {
    return scanner.serving(workspace);
  }

  /** The status of the first companion serving {@code workspace} that answers, if any does. */
  public Optional<CompanionStatus> status(Path workspace) {
    for (CompanionAddress companion : serving(workspace)) {
      try {
        return Optional.of(status(companion));
      } catch (IOException e) {
        // A companion that stopped since its file was read: try the next.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Asks {@code companion} for its status. */
  public CompanionStatus status(CompanionAddress companion) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + CompanionStatus.PATH))
        .timeout(TIMEOUT)
        .header("Authorization", "Bearer " + companion.authToken())
        .GET()
        .build();
    HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IOException("the companion on port " + companion.port() + " answered " + response.statusCode());
    }
    return JSON.readValue(response.body(), CompanionStatus.class);
  }

  /** The workspace the CLI runs in: the first of its roots, else the working directory. */
  public static Path workspace(String workspacePath) {
    if (workspacePath != null) {
      for (String root : workspacePath.split(java.io.File.pathSeparator)) {
        if (!root.isBlank()) {
          return Path.of(root);
        }
      }
    }
    return Path.of("").toAbsolutePath();
  }
}
