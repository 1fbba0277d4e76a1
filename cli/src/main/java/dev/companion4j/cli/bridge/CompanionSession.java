package dev.companion4j.cli.bridge;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * A bridge's MCP session with the companion: the HTTP client, the headers every request carries
 * (token, session id, protocol version), and the goodbye that ends the session.
 */
final class CompanionSession {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * How long the companion may take to start answering the handshake, a notification or the stream.
   */
  static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration GOODBYE_TIMEOUT = Duration.ofSeconds(2);

  private final CompanionTarget target;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(CONNECT_TIMEOUT)
          .build();

  private volatile String sessionId;
  private volatile String protocolVersion;

  /** Guarded by this. */
  private boolean sessionEnded;

  CompanionSession(CompanionTarget target) {
    this.target = target;
  }

  HttpClient http() {
    return http;
  }

  /** Whether the handshake gave a session id. */
  boolean started() {
    return sessionId != null;
  }

  void sessionId(String id) {
    sessionId = id;
  }

  void protocolVersion(String version) {
    protocolVersion = version;
  }

  /**
   * A request to the companion's endpoint with the token and, once known, the session's headers.
   */
  HttpRequest.Builder request() {
    HttpRequest.Builder builder = HttpRequest.newBuilder(target.endpoint());
    builder.header("Authorization", "Bearer " + target.token());
    String session = sessionId;
    if (session != null) {
      builder.header("Mcp-Session-Id", session);
    }
    String version = protocolVersion;
    if (version != null) {
      builder.header("MCP-Protocol-Version", version);
    }
    return builder;
  }

  /**
   * Ends the companion's session (DELETE, then the stream) once; on the main thread, or the
   * shutdown hook on a signal. Whichever comes second waits for the first: a CLI that signals the
   * bridge also closes its stdin, and the JVM must not halt while the first still says goodbye.
   */
  synchronized void end(NotificationStream stream) {
    String session = sessionId;
    if (sessionEnded || session == null) {
      stream.close();
      return;
    }
    sessionEnded = true;
    // The companion closes the stream on DELETE; that end is expected.
    stream.expectEnd();
    try {
      http.send(
          request().timeout(GOODBYE_TIMEOUT).DELETE().build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // The companion is gone already, or does not take DELETE: closing the stream ends the session
      // too.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stream.close();
  }

  /** The companion is gone or never had a session: nothing to say goodbye to. */
  synchronized void abandon(NotificationStream stream) {
    sessionEnded = true;
    stream.close();
  }

  /** Why a connection failed, in words: the HTTP client's own exceptions often carry no message. */
  static String why(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException) {
        return "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s";
      }
      if (t instanceof HttpTimeoutException) {
        return "no answer within " + ACCEPT_TIMEOUT.toSeconds() + " s";
      }
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
