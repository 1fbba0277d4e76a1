package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Every route refuses what it must, on the real command. */
class SecurityIT {
  private static final List<String[]> ROUTES =
      List.of(
          new String[] {"GET", "/mcp"},
          new String[] {"POST", "/mcp"},
          new String[] {"DELETE", "/mcp"},
          new String[] {"GET", "/editor/state"},
          new String[] {"GET", "/editor/diffs"},
          new String[] {"POST", "/editor/events"},
          new String[] {"POST", "/editor/diffs/0123456789abcdef/accept"},
          new String[] {"GET", "/editor/diffs/0123456789abcdef"},
          new String[] {"GET", "/editor/events/stream"},
          new String[] {"POST", "/ide-tools"},
          new String[] {"GET", "/no/such/route"});

  @TempDir static Path temp;
  static CliEnvironment env;
  static CompanionProcess companion;

  @BeforeAll
  static void start() {
    env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
  }

  @AfterAll
  static void stop() throws Exception {
    companion.close();
  }

  private Map<String, String> headers(String host, String auth, String origin) {
    Map<String, String> h = new HashMap<>();
    h.put("Host", host);
    if (auth != null) {
      h.put("Authorization", auth);
    }
    if (origin != null) {
      h.put("Origin", origin);
    }
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    return h;
  }

  private RawHttp.Response send(String[] route, Map<String, String> headers) throws Exception {
    String body = route[0].equals("POST") ? "{}" : null;
    return RawHttp.send(companion.port(), route[0], route[1], headers, body);
  }

  private String ownHost() {
    return "127.0.0.1:" + companion.port();
  }

  @Test
  void everyRouteRefusesAMissingToken() throws Exception {
    for (String[] route : ROUTES) {
      RawHttp.Response r = send(route, headers(ownHost(), null, null));
      assertThat(r.status()).as(String.join(" ", route)).isEqualTo(401);
      assertThat(r.body()).contains("bearer token");
    }
  }

  @Test
  void everyRouteRefusesAWrongToken() throws Exception {
    String almost =
        companion.token().substring(0, 63) + (companion.token().endsWith("0") ? "1" : "0");
    for (String[] route : ROUTES) {
      assertThat(send(route, headers(ownHost(), "Bearer " + almost, null)).status())
          .as(String.join(" ", route))
          .isEqualTo(401);
      assertThat(send(route, headers(ownHost(), "Basic " + companion.token(), null)).status())
          .isEqualTo(401);
    }
  }

  @Test
  void aTokenInTheQueryStringIsNotAToken() throws Exception {
    RawHttp.Response r =
        RawHttp.send(
            companion.port(),
            "GET",
            "/editor/state?token=" + companion.token(),
            headers(ownHost(), null, null),
            null);
    assertThat(r.status()).isEqualTo(401);
  }

  @Test
  void everyRouteRefusesAForeignOriginEvenWithTheToken() throws Exception {
    String auth = "Bearer " + companion.token();
    for (String[] route : ROUTES) {
      for (String origin : List.of("https://evil.example", "http://127.0.0.1:1", "null")) {
        RawHttp.Response r = send(route, headers(ownHost(), auth, origin));
        assertThat(r.status()).as(String.join(" ", route) + " from " + origin).isEqualTo(403);
      }
    }
  }

  @Test
  void everyRouteRefusesAForeignHostEvenWithTheToken() throws Exception {
    String auth = "Bearer " + companion.token();
    for (String[] route : ROUTES) {
      for (String host :
          List.of(
              "evil.example:" + companion.port(),
              "127.0.0.1:1",
              "127.0.0.1",
              "localhost.evil.example:" + companion.port())) {
        RawHttp.Response r = send(route, headers(host, auth, null));
        assertThat(r.status()).as(String.join(" ", route) + " for Host " + host).isEqualTo(403);
      }
    }
  }

  @Test
  void theEditorApiAcceptsTheCompanionsOwnOriginButMcpDoesNot() throws Exception {
    String auth = "Bearer " + companion.token();
    for (String host : List.of("127.0.0.1", "localhost")) {
      String own = "http://" + host + ":" + companion.port();
      assertThat(
              send(
                      new String[] {"GET", "/editor/state"},
                      headers(host + ":" + companion.port(), auth, own))
                  .status())
          .isEqualTo(200);
      for (String mcp : List.of("/mcp", "/ide-tools")) {
        assertThat(
                send(new String[] {"POST", mcp}, headers(host + ":" + companion.port(), auth, own))
                    .status())
            .as(mcp)
            .isEqualTo(403);
      }
    }
    assertThat(
            send(
                    new String[] {"GET", "/editor/state"},
                    headers("host.docker.internal:" + companion.port(), auth, null))
                .status())
        .isEqualTo(200);
  }

  @Test
  void discoveryFilesAreTheOwnersAloneAndTheTokenStaysOutOfTheLog() throws Exception {
    for (Path file : List.of(companion.qwenLockFile(), companion.geminiFile())) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .as(file.toString())
          .isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
          .isEqualTo("rwx------");
    }
    try (CliDriver cli = CliDriver.start(Cli.QWEN, env.workspace(), env.variables())) {
      assertThat(cli.connect().path("status").asString()).isEqualTo("connected");
    }
    assertThat(companion.stderr()).contains("CLI connected").doesNotContain(companion.token());
    assertThat(companion.ready().toString()).doesNotContain(companion.token());
  }

  @Test
  void dotSegmentsFromThePublicPageNeverReachAProtectedRoute() throws Exception {
    Path file = env.file("secret.txt", "the user's code\n");
    try (CliDriver cli = CliDriver.start(Cli.QWEN, env.workspace(), env.variables())) {
      cli.connect();
      cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "proposed secret\n"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> companion.get("/editor/diffs").body().contains("proposed secret"));
      JsonNode state = CompanionProcess.JSON.readTree(companion.get("/editor/state").body());
      String session = state.path("clients").path(0).path("id").asString();
      String diffId = state.path("pendingDiffs").path(0).path("id").asString();
      List<String> prefixes =
          List.of(
              "/review/../",
              "/review/./../",
              "/review/%2e%2e/",
              "/review/%2E%2E/",
              "/review/.%2e/",
              "/review/..%2f",
              "/review/..;/",
              "/review//../",
              "/./");
      List<String> targets =
          List.of(
              "editor/diffs",
              "editor/state",
              "editor/events/stream",
              "editor/events",
              "editor/diffs/accept",
              "editor/diffs/" + diffId + "/accept",
              "editor/diffs/" + diffId,
              "mcp");
      for (String prefix : prefixes) {
        for (String target : targets) {
          for (String method : List.of("GET", "HEAD", "POST", "DELETE")) {
            Map<String, String> h = headers(ownHost(), null, null);
            h.put("mcp-session-id", session);
            String body = method.equals("POST") ? "{\"filePath\":\"" + file + "\"}" : null;
            RawHttp.Response r = RawHttp.send(companion.port(), method, prefix + target, h, body);
            assertThat(r.status()).as(method + " " + prefix + target).isBetween(400, 499);
            assertThat(r.body())
                .as(method + " " + prefix + target)
                .doesNotContain("proposed secret", "the user's code");
          }
        }
      }
      assertThat(companion.get("/editor/diffs").body())
          .as("still pending, answered by nobody")
          .contains("proposed secret");
      assertThat(cli.call("status").path("status").asString()).isEqualTo("connected");
    }
  }

  @Test
  void requestsRefusedBeforeAnyRouteAreShortJsonNotTheServersPage() throws Exception {
    String auth = "Bearer " + companion.token();
    List<RawHttp.Response> answers = new ArrayList<>();
    answers.add(
        RawHttp.send(
            companion.port(), "NOT A", "/editor/state", headers(ownHost(), auth, null), null));
    for (String path :
        List.of(
            "/%zz",
            "/editor/%2e%2e/state",
            "/%2e%2e/",
            "/editor%2fstate",
            "/review/\u00e9\u00ff",
            "/review/%00",
            "/no/such/route")) {
      answers.add(
          RawHttp.send(companion.port(), "GET", path, headers(ownHost(), auth, null), null));
    }
    answers.add(
        RawHttp.send(companion.port(), "GET", "/editor/state", headers("[::1", auth, null), null));
    answers.add(
        RawHttp.send(
            companion.port(),
            "GET",
            "/editor/state",
            headers("127.0.0.1:99999999", auth, null),
            null));
    Map<String, String> big = headers(ownHost(), auth, null);
    big.put("X-Big", "a".repeat(64 * 1024));
    answers.add(RawHttp.send(companion.port(), "GET", "/editor/state", big, null));

    for (RawHttp.Response r : answers) {
      String what = r.head() + "\n\n" + r.body();
      assertThat(r.status()).as(what).isBetween(400, 599);
      assertThat(r.head().toLowerCase(Locale.ROOT))
          .as(what)
          .contains("content-type: application/json");
      assertThat(r.body().toLowerCase(Locale.ROOT))
          .as(what)
          .doesNotContain("<html", "jetty", "exception", "at org.");
      assertThat(CompanionProcess.JSON.readTree(r.body()).path("error").asString())
          .as(what)
          .isNotBlank();
    }
  }

  @Test
  void traceAndOtherUnusedMethodsAreRefusedWithoutEchoingTheRequest() throws Exception {
    String auth = "Bearer " + companion.token();
    for (String method : List.of("TRACE", "OPTIONS", "PUT", "PATCH")) {
      for (String path : List.of("/editor/state", "/mcp", "/review/")) {
        RawHttp.Response r =
            RawHttp.send(companion.port(), method, path, headers(ownHost(), auth, null), null);
        assertThat(r.status()).as(method + " " + path).isEqualTo(405);
        assertThat(r.head() + r.body()).as(method + " " + path).doesNotContain(companion.token());
      }
    }
  }

  @Test
  void connectionsThatNeverFinishTheirHeadersAreClosedAndCliConnectAfterwards() throws Exception {
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 150; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", companion.port()));
        s.getOutputStream()
            .write(
                ("GET /editor/state HTTP/1.1\r\nHost: " + ownHost() + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        s.setSoTimeout(5);
        stalled.add(s);
      }
      // Keep every connection busy with a header byte at a time, as slowloris does, until the
      // companion closes it: an idle timeout alone would never fire.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                stalled.removeIf(SecurityIT::closedByPeer);
                return stalled.isEmpty();
              });
      try (CliDriver cli = CliDriver.start(Cli.GEMINI, env.workspace(), env.variables())) {
        assertThat(cli.connect().path("status").asString()).isEqualTo("connected");
      }
    } finally {
      for (Socket s : stalled) {
        s.close();
      }
    }
  }

  private static boolean closedByPeer(Socket s) {
    try {
      s.getOutputStream().write('X');
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
