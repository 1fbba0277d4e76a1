package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the server answers to requests it cannot even route, written by hand on a socket: short
 * JSON, as on every route, never an HTML page with the server's name and version.
 */
class ErrorPagesTest {
  private static final JsonMapper JSON = JsonMapper.shared();

  @Test
  void requestsJettyRefusesBeforeAnyRouteGetShortJson(@TempDir Path temp) throws Exception {
    try (CompanionFixture fixture = CompanionFixture.start(temp)) {
      refusedAsShortJson(fixture.companion().port(), fixture.companion().authToken());
      assertThat(fixture.client().client.listTools().tools()).as("still serving").hasSize(2);
    }
  }

  private static void refusedAsShortJson(int port, String token) throws Exception {
    String host = "Host: 127.0.0.1:" + port + "\r\n";
    String auth = "Authorization: Bearer " + token + "\r\n";
    Map<String, byte[]> requests = new LinkedHashMap<>();
    requests.put("bad request line", ascii("GARBAGE\r\n\r\n"));
    requests.put("no version", ascii("GET /editor/state\r\n" + host + "\r\n"));
    requests.put("unknown version", ascii("GET /editor/state HTTP/9.9\r\n" + host + "\r\n"));
    requests.put("invalid percent-encoding", ascii("GET /%zz HTTP/1.1\r\n" + host + auth + "\r\n"));
    requests.put("encoded NUL", ascii("GET /ide/%00 HTTP/1.1\r\n" + host + auth + "\r\n"));
    requests.put(
        "non-ASCII in the URI",
        ("GET /ide/\u00e9\u4e2d HTTP/1.1\r\n" + host + auth + "\r\n")
            .getBytes(StandardCharsets.UTF_8));
    requests.put(
        "ambiguous dot-dot", ascii("GET /%2e%2e/ide/status HTTP/1.1\r\n" + host + auth + "\r\n"));
    requests.put(
        "ambiguous separator", ascii("GET /ide%2fstatus HTTP/1.1\r\n" + host + auth + "\r\n"));
    requests.put("bad Host", ascii("GET /ide/status HTTP/1.1\r\nHost: [::1\r\n" + auth + "\r\n"));
    requests.put(
        "Host with a bad port",
        ascii("GET /ide/status HTTP/1.1\r\nHost: 127.0.0.1:99999999\r\n" + auth + "\r\n"));
    requests.put("no Host", ascii("GET /ide/status HTTP/1.1\r\n" + auth + "\r\n"));
    requests.put("two Hosts", ascii("GET /ide/status HTTP/1.1\r\n" + host + host + auth + "\r\n"));
    requests.put(
        "header too large",
        ascii(
            "GET /ide/status HTTP/1.1\r\n"
                + host
                + "X-Big: "
                + "a".repeat(64 * 1024)
                + "\r\n\r\n"));
    requests.put(
        "URI too long",
        ascii("GET /ide/" + "a".repeat(64 * 1024) + " HTTP/1.1\r\n" + host + "\r\n"));
    requests.put(
        "header without colon",
        ascii("GET /ide/status HTTP/1.1\r\n" + host + "broken header\r\n\r\n"));
    requests.put(
        "bad Content-Length",
        ascii("POST /ide/open HTTP/1.1\r\n" + host + auth + "Content-Length: x\r\n\r\n"));
    requests.put(
        "unknown Transfer-Encoding",
        ascii("POST /ide/open HTTP/1.1\r\n" + host + auth + "Transfer-Encoding: gzip\r\n\r\n"));
    requests.put("no such route", ascii("GET /nothing/here HTTP/1.1\r\n" + host + auth + "\r\n"));
    requests.put("the root", ascii("GET / HTTP/1.1\r\n" + host + auth + "\r\n"));

    for (Map.Entry<String, byte[]> request : requests.entrySet()) {
      String answer = exchange(port, request.getValue());
      String what = request.getKey() + ":\n" + answer;
      int split = answer.indexOf("\r\n\r\n");
      assertThat(split).as(what).isPositive();
      String head = answer.substring(0, split);
      String body = answer.substring(split + 4);
      assertThat(Integer.parseInt(head.substring(9, 12))).as(what).isBetween(400, 599);
      assertThat(head.toLowerCase(Locale.ROOT))
          .as(what)
          .contains("content-type: application/json")
          .doesNotContain("jetty");
      assertThat(body.toLowerCase(Locale.ROOT))
          .as(what)
          .doesNotContain("<html", "jetty", "12.0", "exception", "at org.", "java");
      JsonNode json = JSON.readTree(body);
      assertThat(json.size()).as(what).isEqualTo(1);
      assertThat(json.path("error").asString()).as(what).isNotBlank().hasSizeLessThan(200);
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** Sends {@code request} and reads the answer: its head and as much body as it declares. */
  private static String exchange(int port, byte[] request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request);
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      while ((n = read(in, buffer)) > 0) {
        all.write(buffer, 0, n);
        String sofar = all.toString(StandardCharsets.UTF_8);
        int split = sofar.indexOf("\r\n\r\n");
        if (split > 0) {
          String length =
              sofar
                  .substring(0, split)
                  .lines()
                  .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                  .map(l -> l.substring(15).trim())
                  .findFirst()
                  .orElse(null);
          if (length != null && all.size() >= split + 4 + Integer.parseInt(length)) {
            break;
          }
        }
      }
      return all.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * A reset after the answer (the server closing on a request it did not finish reading) ends it
   * too.
   */
  private static int read(InputStream in, byte[] buffer) throws IOException {
    try {
      return in.read(buffer);
    } catch (java.net.SocketException reset) {
      return -1;
    }
  }
}
