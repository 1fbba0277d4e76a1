package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.http.EventStreams;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The threads table of docs/architecture.md lists every thread a companion creates: here one that
 * serves a CLI with its stream, pings and a diff of an existing file, and two host routes with
 * event streams, as the headless host has.
 */
class ThreadsTableTest {
  private static final Path ARCHITECTURE = Path.of("..", "docs", "architecture.md");

  /**
   * The first cell of a row of the table: one or more thread names in backticks, {@code *} for any
   * suffix.
   */
  private static final Pattern ROW = Pattern.compile("^\\| ((?:`[^`]+`(?:, )?)+) \\|");

  private static final Pattern NAME = Pattern.compile("`([^`]+)`");

  @TempDir Path temp;

  @Test
  void everyThreadACompanionCreatesIsInTheThreadsTable() throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    Path file = Files.writeString(workspace.resolve("a.txt"), "a\n");
    EventStreams editors = new EventStreams();
    EventStreams chat = new EventStreams();
    RecordingHost host = new RecordingHost(workspace);
    host.features = Set.of(HostFeature.DOCUMENT_SYMBOLS);
    try (Companion companion =
            CompanionFixture.builder(temp, host)
                .keepAliveInterval(Duration.ofMillis(300))
                .route("/editors/*", subscribing(editors))
                .route("/chat/*", subscribing(chat))
                .build();
        Socket cliStream = new Socket();
        Socket editorStream = new Socket();
        Socket chatStream = new Socket()) {
      companion.start();
      String session = RawMcp.initialize(companion.port(), companion.authToken());
      assertThat(RawMcp.openStream(cliStream, companion.port(), companion.authToken(), session))
          .isEqualTo("HTTP/1.1 200");
      RawMcp.post(
          companion.port(),
          companion.authToken(),
          session,
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"openDiff\",\"arguments\":"
              + "{\"filePath\":\""
              + file
              + "\",\"newContent\":\"b\\n\"}}}");
      // A question about code starts the code thread; this host cannot answer it.
      assertThat(
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(
                              URI.create(
                                  "http://127.0.0.1:"
                                      + companion.port()
                                      + "/ide/code/documentSymbols"))
                          .header("Authorization", "Bearer " + companion.authToken())
                          .POST(HttpRequest.BodyPublishers.ofString("{\"path\":\"" + file + "\"}"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(422);
      subscribe(editorStream, companion, "/editors/stream");
      subscribe(chatStream, companion, "/chat/stream");
      assertThat(readUntil(editorStream, ": connected")).contains(": connected");
      assertThat(readUntil(chatStream, ": connected")).contains(": connected");
      editors.publish("hello", null, Map.of());
      chat.publish("hello", null, Map.of());
      assertThat(readUntil(cliStream, "\"ping\""))
          .as("a ping reached the CLI's stream")
          .contains("\"ping\"");
      assertThat(readUntil(editorStream, "event: hello")).contains("event: hello");
      assertThat(readUntil(chatStream, "event: hello")).contains("event: hello");

      List<String> documented = documentedThreads();
      List<String> created =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> !before.contains(t))
              .map(Thread::getName)
              // The test's own HTTP client (RawMcp).
              .filter(name -> !name.startsWith("HttpClient-"))
              .sorted()
              .toList();

      assertThat(created).isNotEmpty();
      assertThat(created)
          .allSatisfy(
              name ->
                  assertThat(documented)
                      .as("a row of the threads table for " + name)
                      .anyMatch(row -> matches(row, name)));
    } finally {
      editors.close();
      chat.close();
    }
  }

  private static HttpServlet subscribing(EventStreams events) {
    return new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        events.subscribe(req, resp);
      }
    };
  }

  private static void subscribe(Socket socket, Companion companion, String path)
      throws IOException {
    socket.connect(new InetSocketAddress("127.0.0.1", companion.port()));
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + companion.port()
                + "\r\nAuthorization: Bearer "
                + companion.authToken()
                + "\r\nAccept: text/event-stream\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** What {@code socket} brings until {@code text} arrives, or until 15 s have passed. */
  private static String readUntil(Socket socket, String text) throws IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    InputStream in = socket.getInputStream();
    StringBuilder seen = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (!seen.toString().contains(text)) {
      long left = Duration.ofNanos(deadline - System.nanoTime()).toMillis();
      if (left <= 0) {
        break;
      }
      socket.setSoTimeout((int) left);
      int n;
      try {
        n = in.read(buffer);
      } catch (java.net.SocketTimeoutException e) {
        break;
      }
      if (n < 0) {
        break;
      }
      seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
    }
    return seen.toString();
  }

  /** The names in the first column of the Threads section's tables. */
  private static List<String> documentedThreads() throws IOException {
    List<String> names = new ArrayList<>();
    boolean inThreads = false;
    for (String line : Files.readAllLines(ARCHITECTURE)) {
      if (line.startsWith("## ")) {
        inThreads = line.equals("## Threads");
        continue;
      }
      Matcher row = ROW.matcher(line);
      if (inThreads && row.find()) {
        Matcher name = NAME.matcher(row.group(1));
        while (name.find()) {
          names.add(name.group(1));
        }
      }
    }
    return names;
  }

  private static boolean matches(String documented, String name) {
    return documented.endsWith("*")
        ? name.startsWith(documented.substring(0, documented.length() - 1))
        : name.equals(documented);
  }
}
