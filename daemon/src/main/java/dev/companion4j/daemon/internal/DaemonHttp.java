package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.DaemonException;
import java.io.ByteArrayOutputStream;
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
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * JSON requests to the daemon over {@code java.net.http}: the bearer token and client id go in
 * headers, redirects are not followed (they could carry the token elsewhere), and an error answer
 * becomes a {@link DaemonException} with the daemon's own message. The token is cut out of every
 * answer and error, should the daemon echo it (see {@link TokenRedactor}).
 *
 * <p>Bodies are read as streams, up to a size limit and within the request's time limit, so a
 * daemon that sends without end or stops mid-body costs neither the heap nor a thread.
 */
public final class DaemonHttp {
  private static final int MAX_ERROR_BODY = 64 * 1024;

  /** A body as far as it was read. */
  private record Body(byte[] bytes, boolean tooLong, boolean late, IOException failure) {}

  private final URI baseUrl;
  private final String token;
  private final TokenRedactor redactor;
  private final Duration requestTimeout;
  private final int maxResponseBytes;
  private final ScheduledExecutorService timer;
  private final HttpClient client;

  /**
   * @param requestTimeout for a whole request: the answer's headers and its body
   * @param maxResponseBytes the longest JSON answer accepted
   * @param timer cuts off bodies at their deadline
   */
  public DaemonHttp(
      URI baseUrl,
      String token,
      Duration connectTimeout,
      Duration requestTimeout,
      int maxResponseBytes,
      ScheduledExecutorService timer) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.redactor = TokenRedactor.of(token);
    this.requestTimeout = requestTimeout;
    this.maxResponseBytes = maxResponseBytes;
    this.timer = timer;
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

  /** The address's host and port only, for messages a user reads. */
  public String displayAddress() {
    int port =
        baseUrl.getPort() > 0
            ? baseUrl.getPort()
            : "https".equalsIgnoreCase(baseUrl.getScheme()) ? 443 : 80;
    return baseUrl.getHost() + ":" + port;
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

  private JsonNode send(
      String method, String path, JsonNode body, String clientId, Duration timeout) {
    String route = method + " " + path;
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpRequest.Builder request =
        request(path, clientId).timeout(timeout).header("Accept", "application/json");
    if (body != null) {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<InputStream> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw unreachable(route, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DaemonException(route + " interrupted", 0, null, e);
    }
    int status = response.statusCode();
    if (status / 100 != 2) {
      Body error = read(route, response.body(), MAX_ERROR_BODY, deadline);
      throw error(route, status, new String(error.bytes(), StandardCharsets.UTF_8));
    }
    Body answer = read(route, response.body(), maxResponseBytes, deadline);
    if (answer.late()) {
      throw new DaemonException(
          route
              + ": the daemon's answer did not arrive in full within "
              + timeout.toMillis()
              + " ms",
          status,
          null,
          null);
    }
    if (answer.failure() != null) {
      throw new DaemonException(
          route + ": the daemon's answer broke off (" + describe(answer.failure()) + ")",
          status,
          null,
          answer.failure());
    }
    if (answer.tooLong()) {
      throw new DaemonException(
          route + ": the daemon's answer is longer than " + maxResponseBytes + " bytes",
          status,
          null,
          null);
    }
    String text = new String(answer.bytes(), StandardCharsets.UTF_8);
    if (text.isBlank()) {
      return null;
    }
    try {
      // Everything the daemon says may end up in front of a user: without the token.
      return redactor.redact(Json.MAPPER.readTree(text));
    } catch (JacksonException e) {
      throw new DaemonException(
          route + ": the daemon answered with something other than JSON", status, null, null);
    }
  }

  /**
   * Reads at most {@code limit} bytes of a body (one more tells whether it was longer), closing it
   * at the deadline so that a daemon that stops sending mid-body cannot hold the caller.
   */
  private Body read(String route, InputStream body, int limit, long deadlineNanos) {
    AtomicBoolean late = new AtomicBoolean();
    ScheduledFuture<?> cutoff;
    try {
      cutoff =
          timer.schedule(
              () -> {
                late.set(true);
                closeQuietly(body);
              },
              deadlineNanos - System.nanoTime(),
              TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      closeQuietly(body);
      throw new DaemonException(route + ": the daemon client is closed", 0, null, null);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    IOException failure = null;
    try (InputStream in = body) {
      int n;
      while (out.size() <= limit
          && (n = in.read(buffer, 0, (int) Math.min(buffer.length, limit + 1L - out.size())))
              >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      failure = e;
    } finally {
      cutoff.cancel(false);
    }
    byte[] bytes = out.toByteArray();
    boolean tooLong = bytes.length > limit;
    // A cutoff that fires after the last byte was read changes nothing.
    boolean cutOff = late.get() && failure != null;
    return new Body(tooLong ? Arrays.copyOf(bytes, limit) : bytes, tooLong, cutOff, failure);
  }

  private static void closeQuietly(InputStream body) {
    try {
      body.close();
    } catch (IOException e) {
      // Closing only ends the exchange early; there is nothing left to clean up.
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

  /**
   * The daemon's error answer as an exception: {@code {error, code, data: {details}}}, without the
   * token should the daemon echo it.
   */
  public DaemonException error(String route, int status, String body) {
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
      String raw = redact(body);
      message = raw.length() > 200 ? raw.substring(0, 200) + "..." : raw;
    }
    return new DaemonException(
        route + " failed with HTTP " + status + (message == null ? "" : ": " + redact(message)),
        status,
        redact(code),
        null);
  }

  /** Reads the error body of a stream response, bounded in size and in time. */
  public String readErrorBody(String route, InputStream body, Duration timeout) {
    Body error = read(route, body, MAX_ERROR_BODY, System.nanoTime() + timeout.toNanos());
    return new String(error.bytes(), StandardCharsets.UTF_8);
  }

  /**
   * The text without the token in any of its common forms, for anything that came from the daemon.
   */
  public String redact(String text) {
    return redactor.redact(text);
  }

  /** What cuts the token out of the daemon's text and JSON. */
  public TokenRedactor redactor() {
    return redactor;
  }

  /** The exception for a daemon that did not answer. */
  public DaemonException unreachable(String route, IOException e) {
    String why = e instanceof HttpTimeoutException ? "no answer in time" : describe(e);
    return new DaemonException(
        route + ": cannot reach the daemon at " + displayAddress() + " (" + why + ")", 0, null, e);
  }

  private static String describe(IOException e) {
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
