package dev.companion4j.cli.testing;

import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The editor API as a reviewing editor uses it: pending diffs listed, answered by id. */
public final class Review {
  private Review() {}

  /** {@code GET /editor/diffs}. */
  public static List<JsonNode> pendingDiffs(CompanionProcess companion) {
    HttpResponse<String> r = companion.get("/editor/diffs");
    if (r.statusCode() != 200) {
      throw new AssertionError("GET /editor/diffs: " + r.statusCode() + " " + r.body());
    }
    List<JsonNode> diffs = new ArrayList<>();
    CompanionProcess.JSON.readTree(r.body()).forEach(diffs::add);
    return diffs;
  }

  /** The pending diff for {@code file} that proposes {@code newContent}, or null. */
  public static JsonNode pendingDiff(CompanionProcess companion, Path file, String newContent) {
    for (JsonNode d : pendingDiffs(companion)) {
      if (d.path("filePath").asString().equals(file.toString())
          && d.path("newContent").asString().equals(newContent)) {
        return d;
      }
    }
    return null;
  }

  /** Waits for the diff a CLI proposed to be listed, and returns it; it carries an {@code id}. */
  public static JsonNode awaitPendingDiff(
      CompanionProcess companion, Path file, String newContent, Duration timeout) {
    JsonNode diff =
        await("diff for " + file + " listed")
            .atMost(timeout)
            .until(() -> pendingDiff(companion, file, newContent), d -> d != null);
    if (diff.path("id").asString("").isEmpty()) {
      throw new AssertionError("a listed diff has no id: " + diff);
    }
    return diff;
  }

  /**
   * {@code POST /editor/diffs/{id}/accept}, with the content as edited, or as proposed when null.
   */
  public static HttpResponse<String> accept(CompanionProcess companion, String id, String content) {
    return companion.post(
        "/editor/diffs/" + id + "/accept", content == null ? Map.of() : Map.of("content", content));
  }

  /** {@code POST /editor/diffs/{id}/reject}. */
  public static HttpResponse<String> reject(CompanionProcess companion, String id) {
    return companion.post("/editor/diffs/" + id + "/reject", Map.of());
  }

  /** The clients {@code GET /editor/state} lists. */
  public static List<JsonNode> clients(CompanionProcess companion) {
    HttpResponse<String> r = companion.get("/editor/state");
    if (r.statusCode() != 200) {
      throw new AssertionError("GET /editor/state: " + r.statusCode() + " " + r.body());
    }
    List<JsonNode> clients = new ArrayList<>();
    CompanionProcess.JSON.readTree(r.body()).path("clients").forEach(clients::add);
    return clients;
  }

  /** The ids of the clients {@code GET /editor/state} lists. */
  public static List<String> clientIds(CompanionProcess companion) {
    return clients(companion).stream().map(c -> c.path("id").asString()).toList();
  }
}
