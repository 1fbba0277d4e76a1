package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliEnvironment;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The editor API refuses bad input precisely and goes on serving. */
class EditorApiIT {
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
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    assertThat(response.body()).contains(message);
  }

  @Test
  void badEventsGetAClearErrorAndChangeNothing() {
    String file = env.file("real.txt", "x").toString();

    assertRefused(companion.post("/editor/events", "{\"type\":"), 400, "not valid JSON");
    assertRefused(companion.post("/editor/events", "[]"), 400, "expected a JSON object");
    assertRefused(companion.post("/editor/events", Map.of("path", file)), 400, "type is required");
    assertRefused(companion.post("/editor/events", Map.of("type", "explode", "path", file)), 400, "unknown event type 'explode'");
    assertRefused(companion.post("/editor/events", Map.of("type", "focus", "path", "relative.txt")), 400, "must be an absolute path");
    assertRefused(companion.post("/editor/events", Map.of("type", "focus", "path", temp.resolve("nope.txt").toString())), 400, "not a file on disk");
    assertRefused(companion.post("/editor/events", Map.of("type", "cursor", "path", file, "line", 0, "character", 1)), 400, "1-based");
    assertRefused(companion.post("/editor/events", Map.of("type", "cursor", "path", file, "line", "2", "character", 1)), 400, "line must be a whole number");
    assertRefused(companion.post("/editor/events", Map.of("type", "trust", "trusted", "yes")), 400, "trusted must be true or false");
    assertRefused(companion.post("/editor/events", "{\"type\":\"focus\",\"path\":\"" + "a".repeat(2 * 1024 * 1024) + "\"}"), 413, "exceeds the limit");

    assertThat(companion.get("/editor/state").body()).contains("\"openFiles\":[]");
    companion.event(Map.of("type", "focus", "path", file));
  }

  @Test
  void answeringAnUnknownDiffIsNotFound() {
    assertRefused(companion.post("/editor/diffs/accept", Map.of("filePath", "/no/such/diff")), 404, "no pending diff for /no/such/diff");
    assertRefused(companion.post("/editor/diffs/reject", Map.of("filePath", "/no/such/diff")), 404, "no pending diff");
    assertRefused(companion.post("/editor/diffs/accept", Map.of("filePath", "/x", "content", 5)), 400, "content must be a string");
    assertRefused(companion.post("/editor/diffs/reject", "{}"), 400, "filePath is required");
  }

  @Test
  void unknownRoutesAreNotFoundAsJson() {
    assertRefused(companion.get("/editor/nothing"), 404, "no editor API route GET /editor/nothing");
    assertRefused(companion.get("/elsewhere"), 404, "no such route");
  }
}
