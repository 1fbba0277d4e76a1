package dev.companion4j.cli.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * An MCP client written by hand, to behave as no real CLI would: it initializes a session like a
 * CLI, then opens the session's notification stream on a plain socket and stops reading it.
 */
public final class RawMcp {
  /**
   * The smallest receive buffer asked of the kernel: a client that reads nothing fills it at once.
   */
  public static final int TINY_RECEIVE_BUFFER = 1024;

  private RawMcp() {}

  /**
   * Initializes a session as {@code clientName} and sends {@code notifications/initialized}.
   *
   * @return the session id the companion assigned
   */
  public static String initialize(CompanionProcess companion, String clientName) {
    String init =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\""
            + clientName
            + "\",\"version\":\"1.0\"}}}";
    HttpResponse<String> answer = companion.send(mcpPost(companion, init));
    if (answer.statusCode() != 200) {
      throw new AssertionError("initialize refused: " + answer.statusCode() + " " + answer.body());
    }
    String session =
        answer
            .headers()
            .firstValue("mcp-session-id")
            .orElseThrow(
                () ->
                    new AssertionError(
                        "initialize answered without a session id: " + answer.headers()));
    HttpResponse<String> initialized =
        companion.send(
            mcpPost(companion, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                .header("mcp-session-id", session));
    if (initialized.statusCode() / 100 != 2) {
      throw new AssertionError(
          "notifications/initialized refused: "
              + initialized.statusCode()
              + " "
              + initialized.body());
    }
    return session;
  }

  private static HttpRequest.Builder mcpPost(CompanionProcess companion, String json) {
    return companion
        .request("/mcp")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(json));
  }

  /**
   * Opens {@code GET path} with a tiny receive buffer, reads the response head (which must be 200)
   * and nothing after it: the returned socket is a reader that froze. Close it to end the test's
   * side.
   */
  public static Socket frozenGet(CompanionProcess companion, String path, String... extraHeaders) {
    Socket socket = new Socket();
    try {
      socket.setReceiveBufferSize(TINY_RECEIVE_BUFFER);
      socket.connect(new InetSocketAddress("127.0.0.1", companion.port()), 5_000);
      socket.setSoTimeout(10_000);
      StringBuilder request =
          new StringBuilder("GET " + path + " HTTP/1.1\r\n")
              .append("Host: 127.0.0.1:")
              .append(companion.port())
              .append("\r\n")
              .append("Authorization: Bearer ")
              .append(companion.token())
              .append("\r\n")
              .append("Accept: text/event-stream\r\n");
      for (String h : extraHeaders) {
        request.append(h).append("\r\n");
      }
      request.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      String head = readHead(socket.getInputStream());
      if (!head.startsWith("HTTP/1.1 200")) {
        socket.close();
        throw new AssertionError("GET " + path + " was not answered with a stream: " + head);
      }
      return socket;
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Already failing.
      }
      throw new UncheckedIOException(e);
    }
  }

  /** Opens the session's notification stream and freezes, as {@link #frozenGet}. */
  public static Socket frozenNotificationStream(CompanionProcess companion, String sessionId) {
    return frozenGet(companion, "/mcp", "mcp-session-id: " + sessionId);
  }

  /** Reads byte by byte up to the blank line, so not one byte of the body is consumed. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      head.write(b);
      if (head.size() >= 4 && head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        break;
      }
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }
}
