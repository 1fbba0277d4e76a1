package dev.companion4j.extension.ide;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's way to the companion that serves a workspace: found through the discovery files
 * (this user's only), proven to hold the token its file names, then asked over loopback with that
 * token; or, in the companion's own process, that companion itself. The token goes into the
 * request's header and nowhere else.
 */
public final class IdeLink {
  private static final int TIMEOUT_MILLIS = 5000;

  private final Function<Path, Optional<Reach>> finder;

  public IdeLink(DiscoveryLocations locations) {
    DiscoveryScanner scanner = new DiscoveryScanner(locations);
    this.finder = workspace -> scanner.newestServing(workspace).map(Reach::of);
  }

  private IdeLink(Function<Path, Optional<Reach>> finder) {
    this.finder = finder;
  }

  /**
   * A link to the companion {@code companion} supplies, whatever the workspace: for the tools a
   * companion serves itself, which must answer from that companion even where another one serves
   * the same folder. While it supplies none, or one that is not running, there is no companion.
   */
  public static IdeLink to(Supplier<Companion> companion) {
    return new IdeLink(
        workspace -> {
          Companion c = companion.get();
          return c != null && c.isRunning()
              ? Optional.of(new Reach(c.port(), c.authToken()))
              : Optional.empty();
        });
  }

  /**
   * The status of the newest companion serving {@code workspace}, if one proves itself and answers.
   */
  public Optional<CompanionStatus> status(Path workspace) {
    Optional<Reach> companion = finder.apply(workspace);
    try {
      return companion.isPresent() ? Optional.of(status(companion.get())) : Optional.empty();
    } catch (IOException e) {
      // It stopped since it proved itself: as good as none.
      return Optional.empty();
    }
  }

  /**
   * Asks one companion for its status: the one client of {@code GET /ide/status}, for the extension
   * and {@code companion4j status} alike. Only a companion that proved it holds its discovery
   * file's token may be asked ({@link DiscoveryScanner#reachable}).
   *
   * @throws IOException when it does not answer, or answers other than 200
   */
  public static CompanionStatus status(CompanionAddress companion) throws IOException {
    return status(Reach.of(companion));
  }

  private static CompanionStatus status(Reach companion) throws IOException {
    // Read without the mapper: a session-start hook asks this once in a fresh JVM.
    return send(
        companion,
        "GET",
        CompanionStatus.PATH,
        null,
        2 * TIMEOUT_MILLIS,
        (status, in) -> {
          if (status != 200) {
            throw new IOException(
                "the companion on port " + companion.port() + " answered " + status);
          }
          return StatusJson.read(in);
        });
  }

  /**
   * Sends a request to the newest companion serving {@code workspace}. Only a companion that proved
   * it holds its discovery file's token gets the token ({@link DiscoveryScanner#newestServing}).
   *
   * @param body sent as JSON, or null for none
   * @return its answer, or empty when no companion serves the workspace or it stopped meanwhile
   */
  public Optional<Answer> ask(Path workspace, String method, String path, Object body) {
    // Opening a file waits for the editor up to 5 s; the companion then answers.
    return ask(workspace, method, path, body, Duration.ofMillis(2 * TIMEOUT_MILLIS));
  }

  /**
   * {@link #ask(Path, String, String, Object)} for a route that holds its answer back, e.g. until
   * the user decided.
   *
   * @param readTimeout how long the answer may take
   */
  public Optional<Answer> ask(
      Path workspace, String method, String path, Object body, Duration readTimeout) {
    Optional<Reach> companion = finder.apply(workspace);
    try {
      return companion.isPresent()
          ? Optional.of(
              send(
                  companion.get(),
                  method,
                  path,
                  body,
                  (int) readTimeout.toMillis(),
                  (status, in) ->
                      new Answer(
                          status,
                          in == null ? Mapper.JSON.missingNode() : Mapper.JSON.readTree(in))))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * One request. Plain {@link HttpURLConnection}: a hook asks once per process, and the JDK's newer
   * client costs a tenth of a second to set up.
   */
  private static <T> T send(
      Reach companion,
      String method,
      String path,
      Object body,
      int readTimeoutMillis,
      Reading<T> reading)
      throws IOException {
    URL url = URI.create("http://127.0.0.1:" + companion.port() + path).toURL();
    HttpURLConnection c = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY);
    c.setConnectTimeout(TIMEOUT_MILLIS);
    c.setReadTimeout(readTimeoutMillis);
    c.setRequestMethod(method);
    c.setRequestProperty("Authorization", "Bearer " + companion.token());
    try {
      if (body != null) {
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        try (OutputStream out = c.getOutputStream()) {
          Mapper.JSON.writeValue(out, body);
        }
      }
      int status = c.getResponseCode();
      try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
        return reading.read(status, in);
      }
    } finally {
      c.disconnect();
    }
  }

  /** How a request's answer is read: its status and its body, null when it has none. */
  private interface Reading<T> {
    T read(int status, InputStream body) throws IOException;
  }

  /** The mapper, set up only when a request other than the status needs it. */
  private static final class Mapper {
    static final JsonMapper JSON =
        JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  }

  /** Where a companion listens and the token it wants; the token is no part of toString(). */
  private record Reach(int port, String token) {
    static Reach of(CompanionAddress address) {
      return new Reach(address.port(), address.authToken());
    }

    @Override
    public String toString() {
      return "Reach[port=" + port + "]";
    }
  }

  /** A companion's answer: its HTTP status and JSON body. */
  public record Answer(int status, JsonNode body) {
    /** The body as {@code type}. */
    public <T> T as(Class<T> type) {
      return Mapper.JSON.treeToValue(body, type);
    }

    /** The {@code error} the companion explained a refusal with. */
    public String error() {
      return body.path("error").asString("the companion answered " + status);
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
