package dev.companion4j.extension.ide;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
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
  private static final int TIMEOUT_MILLIS = 5000;

  private final DiscoveryScanner scanner;

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
      }
    }
    return Optional.empty();
  }

  /**
   * Asks {@code companion} for its status. Plain {@link HttpURLConnection}: a hook asks once per
   * process, and the JDK's newer client costs a tenth of a second to set up.
   */
  public CompanionStatus status(CompanionAddress companion) throws IOException {
    URL url = URI.create("http://127.0.0.1:" + companion.port() + CompanionStatus.PATH).toURL();
    HttpURLConnection c = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY);
    c.setConnectTimeout(TIMEOUT_MILLIS);
    c.setReadTimeout(TIMEOUT_MILLIS);
    c.setRequestProperty("Authorization", "Bearer " + companion.authToken());
    try {
      if (c.getResponseCode() != 200) {
        throw new IOException("the companion on port " + companion.port() + " answered " + c.getResponseCode());
      }
      try (InputStream body = c.getInputStream()) {
        return JSON.readValue(body, CompanionStatus.class);
      }
    } finally {
      c.disconnect();
    }
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
