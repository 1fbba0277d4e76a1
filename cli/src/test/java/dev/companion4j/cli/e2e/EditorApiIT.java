package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.EventTap;
import dev.companion4j.engine.DiffId;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The editor API refuses bad input precisely and goes on serving; diffs are answered by id, once,
 * and a late answer says why it changed nothing. The proposing CLI is the MCP Java SDK client,
 * which (unlike the real CLIs, one diff at a time) can re-propose and leave on demand.
 */
class EditorApiIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
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

  private static void assertRefused(HttpResponse<String> response, int status, String message) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    assertThat(response.body()).contains(message);
  }

  @Test
  void badEventsGetAClearErrorAndChangeNothing() {
    String file = env.file("real.txt", "x").toString();
    JsonNode before = context();

    assertRefused(companion.post("/editor/events", "{\"type\":"), 400, "not valid JSON");
    assertRefused(companion.post("/editor/events", "[]"), 400, "expected a JSON object");
    assertRefused(companion.post("/editor/events", Map.of("path", file)), 400, "type is required");
    assertRefused(
        companion.post("/editor/events", Map.of("type", "explode", "path", file)),
        400,
        "unknown event type 'explode'");
    assertRefused(
        companion.post("/editor/events", Map.of("type", "focus", "path", "relative.txt")),
        400,
        "path must be absolute: relative.txt");
    assertRefused(
        companion.post(
            "/editor/events", Map.of("type", "focus", "path", temp.resolve("nope.txt").toString())),
        400,
        "not a file on disk");
    assertRefused(
        companion.post(
            "/editor/events", Map.of("type", "cursor", "path", file, "line", 0, "character", 1)),
        400,
        "1-based");
    assertRefused(
        companion.post(
            "/editor/events", Map.of("type", "cursor", "path", file, "line", "2", "character", 1)),
        400,
        "line must be a whole number");
    assertRefused(
        companion.post("/editor/events", Map.of("type", "trust", "trusted", "yes")),
        400,
        "trusted must be true or false");
    assertRefused(
        companion.post("/editor/events", Map.of("type", "dirty", "path", file, "dirty", "yes")),
        400,
        "dirty must be true or false");
    assertRefused(
        companion.post("/editor/events", Map.of("type", "diagnostics", "path", file)),
        400,
        "diagnostics must be an array");
    assertRefused(
        companion.post(
            "/editor/events",
            Map.of(
                "type",
                "diagnostics",
                "path",
                file,
                "diagnostics",
                List.of(Map.of("range", range(2, 1, 2, 4), "severity", "fatal", "message", "m")))),
        400,
        "diagnostics[0]: severity must be error, warning, information or hint");
    assertRefused(
        companion.post(
            "/editor/events",
            Map.of(
                "type",
                "diagnostics",
                "path",
                file,
                "diagnostics",
                List.of(
                    Map.of("range", range(2, 1, 2, 4), "severity", "error", "message", "ok"),
                    Map.of(
                        "range", range(3, 5, 2, 1), "severity", "error", "message", "backwards")))),
        400,
        "diagnostics[1]: range: a range must not end before it starts");
    assertRefused(
        companion.post(
            "/editor/events",
            Map.of(
                "type",
                "diagnostics",
                "path",
                file,
                "diagnostics",
                List.of(Map.of("range", range(1, 1, 1, 1), "severity", "error")))),
        400,
        "diagnostics[0]: message is required");
    assertRefused(
        companion.post(
            "/editor/events",
            Map.of("type", "selection", "path", file, "text", "x", "range", "1:1")),
        400,
        "range must be {startLine");
    assertRefused(
        companion.post(
            "/editor/events",
            "{\"type\":\"focus\",\"path\":\"" + "a".repeat(5 * 1024 * 1024) + "\"}"),
        413,
        "exceeds the limit");

    assertThat(context()).isEqualTo(before);
    companion.event(Map.of("type", "focus", "path", file));
  }

  @Test
  void numbersBeyondTheirRangeGetAReasonNeverAFailure() {
    String file = env.file("numbers.txt", "x").toString();
    List<String> bad =
        List.of(
            "18446744073709551617",
            "123456789012345678901234567890",
            "2147483648",
            "-1",
            "1.5",
            "1e2");
    for (String n : bad) {
      assertRefused(
          companion.post(
              "/editor/events",
              "{\"type\":\"cursor\",\"path\":\"" + file + "\",\"line\":" + n + ",\"character\":1}"),
          400,
          "line must be a whole number from 1");
      assertRefused(
          companion.post(
              "/editor/events",
              "{\"type\":\"selection\",\"path\":\""
                  + file
                  + "\",\"text\":\"x\",\"range\":{\"startLine\":1,\"startCharacter\":1,\"endLine\":"
                  + n
                  + ",\"endCharacter\":1}}"),
          400,
          "range: endLine must be a whole number from 1");
      assertRefused(
          companion.post("/ide/open", "{\"path\":\"" + file + "\",\"line\":" + n + "}"),
          400,
          "line must be a whole number from 1");
    }
    assertThat(companion.stderr())
        .as("no stack trace of the JSON library")
        .doesNotContain("tools.jackson");
  }

  @Test
  void everyStringOfAnEventIsBoundedSoHugeDiagnosticsCannotFillTheHeap() throws Exception {
    // A heap this small is what 150 such events filled before their sources were cut.
    try (CompanionProcess small =
        CompanionProcess.start(env, Map.of("JAVA_TOOL_OPTIONS", "-Xmx256m"))) {
      String source = "s".repeat(3 * 1024 * 1024);
      for (int i = 0; i < 150; i++) {
        HttpResponse<String> sent =
            small.post(
                "/editor/events",
                Map.of(
                    "type",
                    "diagnostics",
                    "path",
                    env.workspace().resolve("Huge" + i + ".java").toString(),
                    "diagnostics",
                    List.of(
                        Map.of(
                            "range",
                            range(1, 1, 1, 2),
                            "severity",
                            "error",
                            "message",
                            "broken",
                            "source",
                            source))));
        assertThat(sent.statusCode()).as("event " + i + ": " + sent.body()).isEqualTo(204);
      }
      await()
          .atMost(WAIT)
          .until(
              () ->
                  CompanionProcess.JSON
                          .readTree(small.get("/ide/diagnostics").body())
                          .path("files")
                          .size()
                      == 150);

      HttpResponse<String> all = small.get("/ide/diagnostics");
      assertThat(all.statusCode()).isEqualTo(200);
      for (JsonNode file : CompanionProcess.JSON.readTree(all.body()).path("files")) {
        assertThat(file.path("diagnostics").path(0).path("source").asString())
            .hasSize(201)
            .endsWith("…");
      }
      String tooLong = "/" + "p".repeat(4096);
      assertRefused(
          small.post("/editor/events", Map.of("type", "close", "path", tooLong)),
          400,
          "path is longer than 4096 bytes (PATH_MAX)");
      assertRefused(
          small.post("/editor/events", Map.of("type", "rename", "from", "/a", "to", tooLong)),
          400,
          "to is longer than 4096 bytes");
      assertRefused(
          small.post("/editor/events", Map.of("type", "relative" + "x".repeat(100_000))),
          400,
          "unknown event type");
      assertThat(
              small.post("/editor/events", Map.of("type", "relative" + "x".repeat(100_000))).body())
          .hasSizeLessThan(1000);
      assertThat(small.get("/editor/state").statusCode()).isEqualTo(200);
      assertThat(small.stderr()).doesNotContain("OutOfMemoryError");
    }
  }

  @Test
  void answeringAnUnknownOrMalformedIdIsRefused() {
    assertRefused(
        companion.post("/editor/diffs/0123456789abcdef/accept", ""),
        404,
        "no diff 0123456789abcdef is known");
    assertRefused(
        companion.post("/editor/diffs/0123456789abcdef/reject", ""),
        404,
        "no diff 0123456789abcdef is known");
    assertRefused(
        companion.get("/editor/diffs/0123456789abcdef"),
        404,
        "diff 0123456789abcdef is not pending");
    assertRefused(
        companion.post("/editor/diffs/not-an-id/accept", ""), 400, "malformed diff id 'not-an-id'");
    assertRefused(
        companion.post("/editor/diffs/0123456789ABCDEF/reject", ""),
        400,
        "sixteen lowercase hex digits");
    assertRefused(companion.get("/editor/diffs/0123"), 400, "malformed diff id");
    assertRefused(
        companion.post("/editor/diffs/0123456789abcdef/accept", "[1]"),
        400,
        "expected a JSON object");
    assertRefused(
        companion.post("/editor/diffs/0123456789abcdef/accept", "{"), 400, "not valid JSON");
  }

  @Test
  void thePathRoutesAreGoneAndAnswerNothing() {
    Path file = env.file("path-routes.txt", "before\n");
    try (McpTapClient cli =
        new McpTapClient(companion.port(), companion.token(), "path-routes-cli")) {
      String id = propose(cli, file, "after\n");

      assertRefused(
          companion.post("/editor/diffs/accept", Map.of("filePath", file.toString())),
          404,
          "Answer a diff by its id (from GET /editor/diffs or a diffOpened event) at /editor/diffs/{id}/accept");
      assertRefused(
          companion.post("/editor/diffs/reject", Map.of("filePath", file.toString())),
          404,
          "/editor/diffs/{id}/reject");

      assertThat(companion.get("/editor/diffs/" + id).statusCode())
          .as("still pending")
          .isEqualTo(200);
      assertThat(cli.received("ide/diffAccepted")).isEmpty();
      assertThat(cli.received("ide/diffRejected")).isEmpty();
    }
  }

  @Test
  void aDiffIsAnsweredByItsIdOnceAndALaterAnswerIsAConflict() {
    Path file = env.file("answered.txt", "before\n");
    try (EventTap events = EventTap.open(companion);
        McpTapClient cli = new McpTapClient(companion.port(), companion.token(), "answering-cli")) {
      cli.call("openDiff", Map.of("filePath", file.toString(), "newContent", "after\n"));
      JsonNode opened =
          events.await("diffOpened", d -> d.path("filePath").asString().equals(file.toString()));
      String id = opened.path("id").asString();
      assertThat(DiffId.isValid(id)).as(opened.toString()).isTrue();
      assertThat(opened.path("originalContent").asString()).isEqualTo("before\n");
      assertThat(opened.path("newContent").asString()).isEqualTo("after\n");
      assertThat(opened.path("clientName").asString())
          .as("its label")
          .matches("answering-cli .*\\(.*pid \\d+\\)");
      assertThat(CompanionProcess.JSON.readTree(companion.get("/editor/diffs/" + id).body()))
          .isEqualTo(opened);

      assertRefused(
          companion.post("/editor/diffs/" + id + "/accept", Map.of("content", 5)),
          400,
          "content must be a string");
      assertThat(
              companion
                  .post("/editor/diffs/" + id + "/accept", Map.of("content", "edited\n"))
                  .statusCode())
          .isEqualTo(204);

      await().atMost(WAIT).until(() -> cli.received("ide/diffAccepted").size() == 1);
      assertThat(cli.received("ide/diffAccepted").get(0).params())
          .containsEntry("filePath", file.toString())
          .containsEntry("content", "edited\n");
      JsonNode closed = events.await("diffClosed", d -> d.path("id").asString().equals(id));
      assertThat(closed.path("filePath").asString()).isEqualTo(file.toString());
      assertThat(closed.path("outcome").asString()).isEqualTo("accepted");

      HttpResponse<String> again = companion.post("/editor/diffs/" + id + "/reject", "");
      assertRefused(again, 409, "diff " + id + " is no longer pending: it was accepted");
      assertThat(CompanionProcess.JSON.readTree(again.body()).path("outcome").asString())
          .isEqualTo("accepted");
      assertRefused(companion.get("/editor/diffs/" + id), 404, "is not pending");
      assertThat(cli.received("ide/diffRejected")).as("the late answer reached no CLI").isEmpty();
      assertThat(cli.received("ide/diffAccepted")).hasSize(1);
    }
  }

  @Test
  void anAnswerForAReplacedProposalIsAConflictAndLeavesTheNewerOnePending() {
    Path file = env.file("replaced.txt", "before\n");
    try (McpTapClient cli =
        new McpTapClient(companion.port(), companion.token(), "replacing-cli")) {
      String older = propose(cli, file, "first\n");
      String newer = propose(cli, file, "second\n");
      assertThat(newer).isNotEqualTo(older);

      HttpResponse<String> late = companion.post("/editor/diffs/" + older + "/accept", "");

      assertRefused(
          late,
          409,
          "diff " + older + " is no longer pending: it was replaced by a newer proposal");
      assertThat(CompanionProcess.JSON.readTree(late.body()).path("outcome").asString())
          .isEqualTo("replaced");
      assertThat(
              CompanionProcess.JSON
                  .readTree(companion.get("/editor/diffs/" + newer).body())
                  .path("newContent")
                  .asString())
          .isEqualTo("second\n");
      assertThat(cli.received("ide/diffAccepted")).isEmpty();
      assertThat(companion.post("/editor/diffs/" + newer + "/reject", "").statusCode())
          .isEqualTo(204);
      await().atMost(WAIT).until(() -> cli.received("ide/diffRejected").size() == 1);
    }
  }

  @Test
  void anAnswerAfterTheProposingCliLeftIsGone() {
    Path file = env.file("abandoned.txt", "before\n");
    try (EventTap events = EventTap.open(companion);
        McpTapClient cli = new McpTapClient(companion.port(), companion.token(), "leaving-cli")) {
      String id = propose(cli, file, "after\n");
      String session =
          CompanionProcess.JSON
              .readTree(companion.get("/editor/diffs/" + id).body())
              .path("clientId")
              .asString();

      HttpResponse<String> bye =
          companion.send(companion.request("/mcp").header("mcp-session-id", session).DELETE());
      assertThat(bye.statusCode()).as(bye.body()).isBetween(200, 299);
      JsonNode closed = events.await("diffClosed", d -> d.path("id").asString().equals(id));
      assertThat(closed.path("outcome").asString()).isEqualTo("clientGone");

      HttpResponse<String> late = companion.post("/editor/diffs/" + id + "/accept", "");
      assertRefused(late, 410, "the CLI that proposed this edit has left; nothing was written");
      assertThat(CompanionProcess.JSON.readTree(late.body()).path("outcome").asString())
          .isEqualTo("clientGone");
      assertThat(companion.post("/editor/diffs/" + id + "/reject", "").statusCode()).isEqualTo(410);
    }
  }

  @Test
  void contextEventsCarryTheWorkspaceStateAsTheClisGetIt() {
    Path file = env.file("context.txt", "one\ntwo\n");
    try (EventTap events = EventTap.open(companion)) {
      companion.event(Map.of("type", "focus", "path", file.toString()));
      companion.event(Map.of("type", "cursor", "path", file.toString(), "line", 2, "character", 3));

      JsonNode context =
          events.await(
              "context", c -> c.path("workspaceState").path("openFiles").path(0).has("cursor"));

      JsonNode active = context.path("workspaceState").path("openFiles").path(0);
      assertThat(active.path("path").asString()).isEqualTo(file.toString());
      assertThat(active.path("isActive").asBoolean()).isTrue();
      assertThat(active.path("cursor").path("line").asInt()).isEqualTo(2);
      assertThat(active.has("selectedText")).as("absent, not null").isFalse();
      assertThat(context.path("workspaceState").path("isTrusted").asBoolean()).isTrue();
    }
  }

  @Test
  void diagnosticsReplaceAFilesListAndReachTheStateAndTheStream() {
    Path file = env.file("Diag.java", "class Diag {}\n");
    try (EventTap events = EventTap.open(companion)) {
      companion.event(
          Map.of(
              "type",
              "diagnostics",
              "path",
              file.toString(),
              "diagnostics",
              List.of(
                  Map.of(
                      "range",
                      range(1, 7, 1, 11),
                      "severity",
                      "warning",
                      "message",
                      "rename me",
                      "source",
                      "lint"),
                  Map.of("range", range(1, 1, 1, 6), "severity", "error", "message", "broken"))));
      JsonNode first =
          events.await("diagnostics", d -> d.path("path").asString("").equals(file.toString()));
      assertThat(first.path("total").asInt()).isEqualTo(2);
      assertThat(first.path("diagnostics").path(0).path("message").asString())
          .as("most severe first")
          .isEqualTo("broken");
      assertThat(first.path("diagnostics").path(1).path("source").asString()).isEqualTo("lint");

      JsonNode state = CompanionProcess.JSON.readTree(companion.get("/editor/state").body());
      assertThat(state.path("features").toString()).contains("diagnostics");
      assertThat(state.path("diagnostics").toString()).contains("rename me");

      companion.event(
          Map.of("type", "diagnostics", "path", file.toString(), "diagnostics", List.of()));
      events.await(
          "diagnostics",
          d -> d.path("path").asString("").equals(file.toString()) && d.path("total").asInt() == 0);
      assertThat(companion.get("/editor/state").body()).doesNotContain("rename me");
    }
  }

  @Test
  void aRequestToOpenAFileReachesEveryEditorOnTheStreamAndOnlyThePageIsNoEditor() {
    Path file = env.file("Open.java", "class Open {}\n");
    try (EventTap page = EventTap.asReviewPage(companion)) {
      HttpResponse<String> unheard =
          companion.post("/ide/open", Map.of("path", file.toString(), "line", 1));
      assertRefused(unheard, 503, "No editor follows this companion's event stream");
      try (EventTap editor = EventTap.open(companion)) {
        HttpResponse<String> heard =
            companion.post("/ide/open", Map.of("path", file.toString(), "line", 1, "character", 7));
        assertThat(heard.statusCode()).as(heard.body()).isEqualTo(200);
        assertThat(heard.body())
            .contains(
                "Asked the editor following the companion to show "
                    + file
                    + " at line 1, character 7.");
        JsonNode place =
            editor.await("openFile", d -> d.path("path").asString("").equals(file.toString()));
        assertThat(place.path("character").asInt()).isEqualTo(7);
        page.await("openFile", d -> d.path("line").asInt() == 1);
      }
    }
  }

  private static Map<String, Object> range(
      int startLine, int startCharacter, int endLine, int endCharacter) {
    return Map.of(
        "startLine",
        startLine,
        "startCharacter",
        startCharacter,
        "endLine",
        endLine,
        "endCharacter",
        endCharacter);
  }

  private static JsonNode context() {
    return CompanionProcess.JSON.readTree(companion.get("/editor/state").body()).path("context");
  }

  /** Proposes an edit as a CLI does and returns the id the editor API lists it under. */
  private static String propose(McpTapClient cli, Path file, String newContent) {
    cli.call("openDiff", Map.of("filePath", file.toString(), "newContent", newContent));
    for (JsonNode d : CompanionProcess.JSON.readTree(companion.get("/editor/diffs").body())) {
      if (d.path("filePath").asString().equals(file.toString())
          && d.path("newContent").asString().equals(newContent)) {
        return d.path("id").asString();
      }
    }
    throw new AssertionError("no pending diff for " + file + " after openDiff");
  }

  @Test
  void unknownRoutesAreNotFoundAsJson() {
    assertRefused(companion.get("/editor/nothing"), 404, "no editor API route GET /editor/nothing");
    assertRefused(companion.get("/elsewhere"), 404, "no such route");
  }
}
