package dev.companion4j.cli.attach;

import dev.companion4j.cli.bridge.JsonRpc;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Requests to a proven companion's editor API, each bounded in time. The token goes into the {@code
 * Authorization} header only, and only to a {@link Target}, which proved it holds it.
 */
final class EditorClient {
  /** A companion answers at once; this only keeps a hung one from holding the editor's requests. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** A status and the JSON body, or a missing node when there was none or it was no JSON. */
  record Reply(int status, JsonNode body) {
    /** The companion's reason, from its {@code {"error": …}} body. */
    String error() {
      return body.path("error").asString("HTTP " + status);
    }
  }

  // No proxy: the companion is on loopback, and a proxy would be a third party holding the token.
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .proxy(HttpClient.Builder.NO_PROXY)
          .connectTimeout(CONNECT_TIMEOUT)
          .build();

  Reply get(Target target, String route) throws IOException {
    return send(request(target, route).GET());
  }

  Reply post(Target target, String route, JsonNode body) throws IOException {
    return send(
        request(target, route)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpc.JSON.writeValueAsBytes(body))));
  }

  /** The editor API's event stream, open; its caller closes it. */
  InputStream events(Target target) throws IOException {
    HttpResponse<InputStream> response =
        exchange(
            request(target, "/events/stream").header("Accept", "text/event-stream").GET(),
            HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      response.body().close();
      throw new IOException(
          "the companion refused its event stream (HTTP " + response.statusCode() + ")");
    }
    return response.body();
  }

  private static HttpRequest.Builder request(Target target, String route) {
    return HttpRequest.newBuilder(target.editorApi(route))
        .timeout(REQUEST_TIMEOUT)
        .header("Authorization", "Bearer " + target.token());
  }

  private Reply send(HttpRequest.Builder request) throws IOException {
    HttpResponse<byte[]> response = exchange(request, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode body;
    try {
      body =
          response.body().length == 0
              ? JsonRpc.JSON.missingNode()
              : JsonRpc.JSON.readTree(response.body());
    } catch (JacksonException e) {
      body = JsonRpc.JSON.missingNode();
    }
    return new Reply(response.statusCode(), body);
  }

  private <T> HttpResponse<T> exchange(
      HttpRequest.Builder request, HttpResponse.BodyHandler<T> handler) throws IOException {
    try {
      return http.send(request.build(), handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
