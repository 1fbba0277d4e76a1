package dev.companion4j.engine;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A CLI's handshake by hand, for tests that then misbehave on the wire. */
final class RawMcp {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private RawMcp() {}

  /** Initializes a session and returns its id. */
  static String initialize(int port, String token) throws Exception {
    HttpResponse<String> init =
        post(
            port,
            token,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    String session =
        init.headers()
            .firstValue("mcp-session-id")
            .orElseThrow(() -> new AssertionError(init.body()));
    post(port, token, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return session;
  }

  /**
   * Opens the session's notification stream on {@code socket} by hand and reads only the status
   * line, so the test decides whether anything more is ever read.
   */
  static String openStream(Socket socket, int port, String token, String session)
      throws IOException {
    socket.connect(new InetSocketAddress("127.0.0.1", port));
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                + port
                + "\r\nAuthorization: Bearer "
                + token
                + "\r\nAccept: text/event-stream\r\nmcp-session-id: "
                + session
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
  }

  /**
   * Posts a JSON body of {@code bodyBytes} to {@code /mcp} by hand, writes all of it and only then
   * reads the whole answer, head and body, until the companion closes or the answer's length ends.
   */
  static String postWhole(int port, String token, int bodyBytes) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port));
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                  + port
                  + "\r\nAuthorization: Bearer "
                  + token
                  + "\r\nContent-Type: application/json\r\nAccept: application/json,"
                  + " text/event-stream\r\nConnection: close\r\nContent-Length: "
                  + bodyBytes
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      byte[] body = new byte[bodyBytes];
      Arrays.fill(body, (byte) ' ');
      body[0] = '[';
      body[bodyBytes - 1] = ']';
      out.write(body);
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static HttpResponse<String> post(int port, String token, String session, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      request.header("mcp-session-id", session);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
