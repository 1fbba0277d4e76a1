package dev.companion4j.cli.bench;

import dev.companion4j.wire.SseDecoder;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The thinnest MCP Streamable HTTP client: one keep-alive socket for requests, one for the
 * notification stream, no framework. It isolates what the engine costs from what a client library
 * costs; the benchmark reports both.
 */
final class WireClient implements AutoCloseable {
  /** A notification's data as it arrived, with its arrival time. */
  record Arrival(String data, long nanoTime) {}

  private final int port;
  private final String token;
  private final Socket requests;
  private final OutputStream out;
  private final InputStream in;
  private final String sessionId;
  private final BlockingQueue<Arrival> notifications = new LinkedBlockingQueue<>();
  private Socket stream;

  WireClient(int port, String token) throws IOException {
    this.port = port;
    this.token = token;
    requests = new Socket("127.0.0.1", port);
    requests.setTcpNoDelay(true);
    out = requests.getOutputStream();
    in = new BufferedInputStream(requests.getInputStream());
    String head =
        post(
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"wire-bench\",\"version\":\"1\"}}}");
    sessionId =
        head.lines()
            .filter(l -> l.toLowerCase().startsWith("mcp-session-id:"))
            .map(l -> l.substring(l.indexOf(':') + 1).trim())
            .findFirst()
            .orElseThrow(() -> new IOException("no session id in " + head));
    post(sessionId, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  /** Opens the notification stream; arrivals queue up for {@link #nextNotification()}. */
  void listen() throws IOException {
    stream = new Socket("127.0.0.1", port);
    stream.setTcpNoDelay(true);
    stream
        .getOutputStream()
        .write(
            ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                    + port
                    + "\r\nAuthorization: Bearer "
                    + token
                    + "\r\nmcp-session-id: "
                    + sessionId
                    + "\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    InputStream events = new BufferedInputStream(stream.getInputStream());
    // The response head and chunk sizes read as lines of unknown fields, which the decoder ignores.
    SseDecoder decoder =
        new SseDecoder(
            64 * 1024 * 1024,
            SseDecoder.Listener.of(
                event -> {
                  if (event.data().contains("ide/")) {
                    notifications.add(new Arrival(event.data(), System.nanoTime()));
                  }
                },
                () -> {
                  throw new AssertionError("a notification longer than 64 MiB");
                }));
    Thread reader =
        new Thread(
            () -> {
              try {
                decoder.read(events);
              } catch (IOException closed) {
                // The benchmark is over.
              }
            },
            "wire-stream");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Opens the notification stream on a socket with a {@code receiveBufferBytes} receive buffer and
   * never reads it: a CLI that froze.
   */
  void listenWithoutReading(int receiveBufferBytes) throws IOException {
    stream = new Socket();
    stream.setReceiveBufferSize(receiveBufferBytes);
    stream.connect(new InetSocketAddress("127.0.0.1", port));
    stream
        .getOutputStream()
        .write(
            ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                    + port
                    + "\r\nAuthorization: Bearer "
                    + token
                    + "\r\nmcp-session-id: "
                    + sessionId
                    + "\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
  }

  Arrival nextNotification() throws InterruptedException {
    return notifications.take();
  }

  /** The next notification that arrived, waiting at most {@code timeout}; null if none. */
  Arrival pollNotification(Duration timeout) throws InterruptedException {
    return notifications.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  String sessionId() {
    return sessionId;
  }

  /** Calls a tool and returns when the whole answer has arrived. */
  String callTool(String name, String argumentsJson) throws IOException {
    return post(
        sessionId,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
            + name
            + "\",\"arguments\":"
            + argumentsJson
            + "}}");
  }

  private String post(String session, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
            + port
            + "\r\nAuthorization: Bearer "
            + token
            + (session == null ? "" : "\r\nmcp-session-id: " + session)
            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return readResponse();
  }

  private String readResponse() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1) {
      all.write(c);
      String sofar = all.toString(StandardCharsets.UTF_8);
      int end = sofar.indexOf("\r\n\r\n");
      if (end < 0) {
        continue;
      }
      String head = sofar.substring(0, end);
      if (head.toLowerCase().contains("transfer-encoding: chunked")) {
        if (sofar.endsWith("\r\n0\r\n\r\n")) {
          return sofar;
        }
      } else {
        int length =
            head.lines()
                .filter(l -> l.toLowerCase().startsWith("content-length:"))
                .map(l -> Integer.parseInt(l.substring(15).trim()))
                .findFirst()
                .orElse(0);
        if (all.size() - end - 4 >= length) {
          return sofar;
        }
      }
    }
    throw new IOException("connection closed mid-response");
  }

  @Override
  public void close() throws IOException {
    requests.close();
    if (stream != null) {
      stream.close();
    }
  }
}
