package dev.companion4j.engine.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.internal.server.RequestGuard.Decision;
import dev.companion4j.engine.internal.server.RequestGuard.Inbound;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard's decisions, without a server. */
class RequestGuardTest {
  private static final String TOKEN = "a".repeat(64);
  private static final int PORT = 4711;
  private static final String HOST = "127.0.0.1:" + PORT;
  private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "DELETE");
  private static final List<String> PROTECTED =
      List.of(
          "/mcp",
          "/editor/state",
          "/editor/diffs",
          "/editor/events/stream",
          "/editor/events",
          "/editor/diffs/accept");

  private final RequestGuard guard =
      new RequestGuard(
          TOKEN,
          () -> PORT,
          path -> path.startsWith("/editor/") || path.startsWith("/review/"),
          path -> path.startsWith("/review/"),
          1024);

  private static Inbound request(String method, String raw, String routed, String auth) {
    return new Inbound(method, raw, routed, HOST, null, auth, -1);
  }

  @Test
  void dotSegmentsNeverReachARouteWhateverTheMethodAndForm() {
    List<String> prefixes =
        List.of(
            "/review/../",
            "/review/./../",
            "/review/%2e%2e/",
            "/review/%2E%2E/",
            "/review/.%2e/",
            "/review/..%2f",
            "/review/..%5c",
            "/review/..\\",
            "/review/..;/",
            "/review//../",
            "/./",
            "/review/%252e%252e/");
    for (String prefix : prefixes) {
      for (String target : PROTECTED) {
        for (String method : METHODS) {
          String raw = prefix + target.substring(1);
          Decision d = guard.decide(request(method, raw, target, null));
          assertThat(d)
              .as(method + " " + raw)
              .isEqualTo(
                  new Decision.Refuse(
                      400,
                      "request paths with dot segments, encoded separators or path parameters are refused",
                      false));
        }
      }
    }
  }

  @Test
  void aRawPathThatRoutesElsewhereIsRefusedEvenWithoutDots() {
    Decision d = guard.decide(request("GET", "/review/app.js", "/editor/diffs", null));

    assertThat(d).isInstanceOf(Decision.Refuse.class);
  }

  @Test
  void onlyTheFourMethodsAreServed() {
    for (String method : List.of("TRACE", "OPTIONS", "PUT", "PATCH", "CONNECT", "PROPFIND")) {
      Decision d =
          guard.decide(request(method, "/editor/state", "/editor/state", "Bearer " + TOKEN));
      assertThat(d)
          .as(method)
          .isEqualTo(
              new Decision.Refuse(
                  405,
                  "method not allowed; the companion serves GET, HEAD, POST and DELETE",
                  false));
    }
  }

  @Test
  void publicAssetsPassWithoutTheTokenOnlyForGetAndHead() {
    assertThat(guard.decide(request("GET", "/review/app.js", "/review/app.js", null)))
        .isInstanceOf(Decision.Pass.class);
    assertThat(guard.decide(request("HEAD", "/review/", "/review/", null)))
        .isInstanceOf(Decision.Pass.class);
    assertThat(guard.decide(request("POST", "/review/app.js", "/review/app.js", null)))
        .isEqualTo(new Decision.Refuse(405, "static assets answer GET and HEAD only", false));
  }

  @Test
  void everyProtectedRouteWantsTheToken() {
    for (String target : PROTECTED) {
      for (String method : METHODS) {
        assertThat(guard.decide(request(method, target, target, null)))
            .isEqualTo(new Decision.Refuse(401, "missing or wrong bearer token", true));
        assertThat(
                guard.decide(request(method, target, target, "Bearer " + TOKEN.replace('a', 'b'))))
            .isInstanceOf(Decision.Refuse.class);
        assertThat(guard.decide(request(method, target, target, "Bearer " + TOKEN)))
            .isInstanceOf(Decision.Pass.class);
      }
    }
  }

  @Test
  void hostAndOriginAreCheckedBeforeTheToken() {
    Inbound foreignHost =
        new Inbound(
            "GET",
            "/editor/state",
            "/editor/state",
            "evil.example:" + PORT,
            null,
            "Bearer " + TOKEN,
            -1);
    Inbound foreignOrigin =
        new Inbound(
            "GET",
            "/editor/state",
            "/editor/state",
            HOST,
            "https://evil.example",
            "Bearer " + TOKEN,
            -1);
    Inbound ownOriginOnMcp =
        new Inbound("POST", "/mcp", "/mcp", HOST, "http://" + HOST, "Bearer " + TOKEN, -1);
    Inbound ownOriginOnEditor =
        new Inbound(
            "GET", "/editor/state", "/editor/state", HOST, "http://" + HOST, "Bearer " + TOKEN, -1);

    assertThat(guard.decide(foreignHost))
        .extracting(d -> ((Decision.Refuse) d).status())
        .isEqualTo(403);
    assertThat(guard.decide(foreignOrigin))
        .extracting(d -> ((Decision.Refuse) d).status())
        .isEqualTo(403);
    assertThat(guard.decide(ownOriginOnMcp))
        .extracting(d -> ((Decision.Refuse) d).status())
        .isEqualTo(403);
    assertThat(guard.decide(ownOriginOnEditor)).isInstanceOf(Decision.Pass.class);
  }

  @Test
  void oversizedBodiesAreRefusedByTheirLength() {
    Inbound big =
        new Inbound(
            "POST", "/editor/events", "/editor/events", HOST, null, "Bearer " + TOKEN, 1025);

    assertThat(guard.decide(big))
        .isEqualTo(new Decision.Refuse(413, "request body exceeds the limit of 1024 bytes", false));
  }
}
