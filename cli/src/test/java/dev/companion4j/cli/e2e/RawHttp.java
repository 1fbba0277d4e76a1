package dev.companion4j.cli.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One HTTP/1.1 request over a plain socket, with exactly the headers given: the JDK client will not
 * send a forged Host header, and security tests must.
 */
final class RawHttp {
  record Response(int status, String head, String body) {}

  private RawHttp() {}

  static Response send(
      int port, String method, String path, Map<String, String> headers, String body)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
      headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
      if (body != null) {
        request.append("Content-Length: ").append(bytes.length).append("\r\n");
      }
      request.append("Connection: close\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(bytes);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      // A refused request ends at once; an accepted event stream would not, so stop at the head.
      while ((n = in.read(buffer)) != -1) {
        all.write(buffer, 0, n);
        String sofar = all.toString(StandardCharsets.UTF_8);
        if (sofar.contains("text/event-stream") && sofar.contains("\r\n\r\n")) {
          break;
        }
      }
      String text = all.toString(StandardCharsets.UTF_8);
      int split = text.indexOf("\r\n\r\n");
      String head = split < 0 ? text : text.substring(0, split);
      String rest = split < 0 ? "" : text.substring(split + 4);
      int status = Integer.parseInt(head.substring(9, 12));
      return new Response(status, head, rest);
    }
  }
}
