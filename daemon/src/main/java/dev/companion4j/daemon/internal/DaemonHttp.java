package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.DaemonException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * JSON requests to the daemon over {@code java.net.http}: the bearer token and client id go in
 * headers, redirects are not followed (they could carry the token elsewhere), and an error answer
 * becomes a {@link DaemonException} with the daemon's own message.
 */
public final class DaemonHttp {
  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final URI baseUrl;
  private final String token;
  private final Duration requestTimeout;
  private final HttpClient client;

  public DaemonHttp(URI baseUrl, String token, Duration connectTimeout, Duration requestTimeout) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.requestTimeout = requestTimeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  public URI baseUrl() {
    return baseUrl;
  }

  /** Encodes one path segment (session ids, workspace paths). */
  public static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** GET returning the JSON body. */
  public JsonNode get(String path, String clientId) {
    return send("GET", path, null, clientId, requestTimeout);
  }

  /** POST a JSON body; returns the JSON answer, or {@code null} for an empty one. */
  public JsonNode post(String path, JsonNode body, String clientId) {
    return post(path, body, clientId, requestTimeout);
  }

  /** POST with its own time limit, for best-effort calls that must not hold the caller up. */
  public JsonNode post(String path, JsonNode body, String clientId, Duration timeout) {
    return send("POST", path, body == null ? Json.object() : body, clientId, timeout);
  }

  /** DELETE; returns the JSON answer, or {@code null} for an empty one. */
  public JsonNode delete(String path, String clientId) {
    return send("DELETE", path, null, clientId, requestTimeout);
  }

  private JsonNode send(String method, String path, JsonNode body, String clientId, Duration timeout) {
    HttpRequest.Builder request =
        request(path, clientId).timeout(timeout).header("Accept", "application/json");
    if (body != null) {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw unreachable(method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DaemonException(method + " " + path + " interrupted", 0, null, e);
    }
    if (response.statusCode() / 100 != 2) {
      throw error(method + " " + path, response.statusCode(), response.body());
    }
    String text = response.body();
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return Json.MAPPER.readTree(text);
    } catch (JacksonException e) {
      throw new DaemonException(
          method + " " + path + ": the daemon answered with something other than JSON",
          response.statusCode(),
          null,
          null);
    }
  }

  /**
   * Starts {@code GET path} as an event stream; the caller owns the body. Cancelling the future
   * abandons a connection attempt that has not been answered yet.
   */
  public CompletableFuture<HttpResponse<InputStream>> openStream(
      String path, String clientId, Map<String, String> headers, Duration timeout) {
    HttpRequest.Builder request =
        request(path, clientId).timeout(timeout).header("Accept", "text/event-stream").GET();
    headers.forEach(request::header);
    return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private HttpRequest.Builder request(String path, String clientId) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (clientId != null) {
      request.header("X-Qwen-Client-Id", clientId);
    }
    return request;
  }

  /** The daemon's error answer as an exception: {@code {error, code, data: {details}}}. */
  public static DaemonException error(String route, int status, String body) {
    String message = null;
    String code = null;
    try {
      JsonNode json = body == null || body.isBlank() ? null : Json.MAPPER.readTree(body);
      if (json != null && json.isObject()) {
        message = Json.text(json, "error");
        code = Json.scalar(json, "code");
        String details = Json.text(json.path("data"), "details");
        if (details != null) {
          message = message == null ? details : message + ": " + details;
        }
      }
    } catch (JacksonException e) {
      message = null;
    }
    if (message == null && body != null && !body.isBlank()) {
      message = body.length() > 200 ? body.substring(0, 200) + "..." : body;
    }
    return new DaemonException(
        route + " failed with HTTP " + status + (message == null ? "" : ": " + message),
        status,
        code,
        null);
  }

  /** Reads an error body of a stream response, bounded. */
  public static String readErrorBody(InputStream body) {
    try (InputStream in = body) {
      return new String(in.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
  }

  /** The exception for a daemon that did not answer. */
  public DaemonException unreachable(String route, IOException e) {
    String why =
        e instanceof HttpTimeoutException
            ? "no answer in time"
            : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    return new DaemonException(
        route + ": cannot reach the daemon at " + baseUrl + " (" + why + ")", 0, null, e);
  }
}
