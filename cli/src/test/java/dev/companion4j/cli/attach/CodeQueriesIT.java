package dev.companion4j.cli.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.engine.DiffId;
import dev.companion4j.testkit.CliEnvironment;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.JsonNode;

/**
 * Questions about code on the headless companion from the shaded jar: asked on {@code /ide/code/},
 * passed to the editor that follows it through {@code attach} as {@code codeQuery}, and answered by
 * a scripted editor with {@code codeAnswer}; a rename's files proposed as one change that the
 * editor accepts with {@code acceptChange}.
 */
// Each test has its own companion and folder, and most wait on the companion's bounds.
@Execution(ExecutionMode.CONCURRENT)
class CodeQueriesIT {
  /** Past the companion's wait for an editor (25 s), within the asker's own bound (30 s). */
  private static final Duration ASKER_WAIT = Duration.ofSeconds(40);

  private static final String MAIN =
      "class Main {\n  void run() { helper(); }\n  void helper() {}\n}\n";

  @TempDir Path temp;

  /** A request to the companion's code routes, on another thread: it waits for the editor. */
  private static CompletableFuture<HttpResponse<String>> ask(
      CompanionProcess companion, String route, Map<String, Object> body) {
    return CompletableFuture.supplyAsync(
        () ->
            companion.send(
                companion
                    .request("/ide/code/" + route)
                    .timeout(ASKER_WAIT)
                    .header("Content-Type", "application/json")
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            CompanionProcess.JSON.writeValueAsString(body)))));
  }

  private static JsonNode body(HttpResponse<String> response) {
    return CompanionProcess.JSON.readTree(response.body());
  }

  private static HttpResponse<String> answered(CompletableFuture<HttpResponse<String>> asked) {
    return await().atMost(ASKER_WAIT).until(() -> asked.getNow(null), r -> r != null);
  }

  @Test
  void aQueryReachesTheEditorAndItsFirstValidAnswerReachesTheAsker() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path main = env.file("src/Main.java", MAIN);
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess editor = AttachProcess.start(env)) {
      editor.awaitNotification("attached");
      CompletableFuture<HttpResponse<String>> asked =
          ask(companion, "definition", Map.of("path", "src/Main.java", "line", 2, "column", 17));

      JsonNode query = editor.awaitNotification("codeQuery");
      String id = query.path("id").asString();
      assertThat(DiffId.isValid(id)).as(query.toString()).isTrue();
      assertThat(query.path("kind").asString()).isEqualTo("definition");
      assertThat(query.path("path").asString()).isEqualTo(main.toString());
      assertThat(query.path("line").asInt()).isEqualTo(2);
      assertThat(query.path("column").asInt()).isEqualTo(17);

      JsonNode relative =
          editor.request(
              "codeAnswer",
              Map.of("id", id, "results", List.of(Map.of("path", "Main.java", "line", 3))));
      assertThat(relative.path("error").path("code").asString())
          .as(relative.toString())
          .isEqualTo("invalidParams");
      assertThat(relative.path("error").path("message").asString()).contains("must be absolute");
      JsonNode both =
          editor.request("codeAnswer", Map.of("id", id, "results", List.of(), "error", "x"));
      assertThat(both.path("error").path("message").asString()).contains("exactly one of");
      JsonNode filesForADefinition =
          editor.request(
              "codeAnswer",
              Map.of("id", id, "files", List.of(Map.of("path", main.toString(), "content", ""))));
      assertThat(filesForADefinition.path("error").path("code").asString())
          .isEqualTo("invalidParams");
      assertThat(asked).as("a malformed answer does not count").isNotDone();

      JsonNode first =
          editor.request(
              "codeAnswer",
              Map.of(
                  "id",
                  id,
                  "results",
                  List.of(
                      Map.of(
                          "name",
                          "helper",
                          "kind",
                          "method",
                          "path",
                          main.toString(),
                          "line",
                          3,
                          "column",
                          8,
                          "text",
                          "  void helper() {}",
                          "declaration",
                          true))));
      assertThat(first.has("result")).as(first.toString()).isTrue();
      HttpResponse<String> response = answered(asked);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode result = body(response).path("results").get(0);
      assertThat(result.path("path").asString()).isEqualTo(main.toString());
      assertThat(result.path("line").asInt()).isEqualTo(3);
      assertThat(result.path("column").asInt()).isEqualTo(8);
      assertThat(result.path("text").asString()).isEqualTo("  void helper() {}");
      assertThat(result.path("declaration").asBoolean()).isTrue();

      JsonNode second = editor.request("codeAnswer", Map.of("id", id, "results", List.of()));
      assertThat(second.path("error").path("code").asString())
          .as(second.toString())
          .isEqualTo("unknownQuery");
      assertThat(second.path("error").path("message").asString()).contains("answered already");
      assertThat(
              editor
                  .request(
                      "codeAnswer", Map.of("id", DiffId.random().value(), "results", List.of()))
                  .path("error")
                  .path("code")
                  .asString())
          .isEqualTo("unknownQuery");

      CompletableFuture<HttpResponse<String>> callers =
          ask(
              companion,
              "callHierarchy",
              Map.of("path", main.toString(), "line", 3, "column", 8, "direction", "incoming"));
      JsonNode hierarchy =
          editor.awaitNotification(
              "codeQuery", q -> q.path("kind").asString().equals("callHierarchy"));
      assertThat(hierarchy.path("direction").asString()).isEqualTo("incoming");
      editor.request(
          "codeAnswer", Map.of("id", hierarchy.path("id").asString(), "results", List.of()));
      HttpResponse<String> none = answered(callers);
      assertThat(none.statusCode()).isEqualTo(200);
      assertThat(body(none).path("results")).as("none found is an empty list").isEmpty();
      assertThat(editor.stderr()).doesNotContain(companion.token());
    }
  }

  @Test
  void anEditorThatCannotAnswerIsHeardInItsWords() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    env.file("src/Main.java", MAIN);
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess editor = AttachProcess.start(env)) {
      editor.awaitNotification("attached");
      CompletableFuture<HttpResponse<String>> asked =
          ask(companion, "workspaceSymbols", Map.of("query", "Hel"));
      JsonNode query = editor.awaitNotification("codeQuery");
      assertThat(query.path("query").asString()).isEqualTo("Hel");
      assertThat(query.has("path")).isFalse();

      editor.request(
          "codeAnswer",
          Map.of("id", query.path("id").asString(), "error", "no language server for Java"));

      HttpResponse<String> response = answered(asked);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
      assertThat(body(response).path("error").asString())
          .isEqualTo("The editor cannot answer: no language server for Java");
    }
  }

  @Test
  void anUnansweredQueryEndsWithAReasonBeforeTheAskersBoundAndALateAnswerChangesNothing()
      throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    env.file("src/Main.java", MAIN);
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess editor = AttachProcess.start(env)) {
      editor.awaitNotification("attached");
      long started = System.nanoTime();
      CompletableFuture<HttpResponse<String>> asked =
          ask(companion, "documentSymbols", Map.of("path", "src/Main.java"));
      String id = editor.awaitNotification("codeQuery").path("id").asString();

      HttpResponse<String> response = answered(asked);
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
      assertThat(body(response).path("error").asString())
          .contains("No editor answered within 25 s");
      assertThat(took).isBetween(Duration.ofSeconds(24), Duration.ofSeconds(30));

      JsonNode late = editor.request("codeAnswer", Map.of("id", id, "results", List.of()));
      assertThat(late.path("error").path("code").asString())
          .as("the query was withdrawn: " + late)
          .isEqualTo("unknownQuery");
      assertThat(late.path("error").path("message").asString()).contains("no editor answered it");
    }
  }

  @Test
  void withNoEditorFollowingTheCompanionAQueryIsRefusedAtOnce() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    env.file("src/Main.java", MAIN);
    try (CompanionProcess companion = CompanionProcess.start(env)) {
      long started = System.nanoTime();
      HttpResponse<String> response =
          answered(
              ask(
                  companion,
                  "references",
                  Map.of("path", "src/Main.java", "line", 3, "column", 8)));
      assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
      assertThat(body(response).path("error").asString())
          .startsWith("No editor follows this companion");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void refusedQueriesReachTheAskerAndNeverTheEditor() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    env.file("src/Main.java", MAIN);
    Path outside = temp.resolve("Outside.java");
    java.nio.file.Files.writeString(outside, MAIN);
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess editor = AttachProcess.start(env)) {
      editor.awaitNotification("attached");
      HttpResponse<String> past =
          answered(
              ask(
                  companion,
                  "definition",
                  Map.of("path", "src/Main.java", "line", 9, "column", 1)));
      assertThat(past.statusCode()).isEqualTo(400);
      assertThat(body(past).path("error").asString()).contains("line 9 is outside Main.java");
      HttpResponse<String> wide =
          answered(
              ask(
                  companion,
                  "definition",
                  Map.of("path", "src/Main.java", "line", 3, "column", 40)));
      assertThat(wide.statusCode()).isEqualTo(400);
      assertThat(body(wide).path("error").asString()).contains("column 40 is outside line 3");
      HttpResponse<String> foreign =
          answered(
              ask(
                  companion,
                  "references",
                  Map.of("path", outside.toString(), "line", 1, "column", 7)));
      assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(400);
      assertThat(editor.notifications("codeQuery")).isEmpty();
    }
  }

  @Test
  void aRenameAnsweredWithFilesIsReviewedAsOneChangeAndWrittenOnceAccepted() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path main = env.file("src/Main.java", MAIN);
    Path user =
        env.file("src/User.java", "class User {\n  void go() { new Main().helper(); }\n}\n");
    String renamedMain = MAIN.replace("helper", "assist");
    String renamedUser = "class User {\n  void go() { new Main().assist(); }\n}\n";
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess editor = AttachProcess.start(env)) {
      editor.awaitNotification("attached");
      CompletableFuture<HttpResponse<String>> asked =
          ask(
              companion,
              "rename",
              Map.of("path", "src/Main.java", "line", 3, "column", 8, "newName", "assist"));
      JsonNode query = editor.awaitNotification("codeQuery");
      String id = query.path("id").asString();
      assertThat(query.path("kind").asString()).isEqualTo("rename");
      assertThat(query.path("newName").asString()).isEqualTo("assist");

      JsonNode outside =
          editor.request(
              "codeAnswer",
              Map.of(
                  "id",
                  id,
                  "files",
                  List.of(
                      Map.of("path", temp.resolve("Elsewhere.java").toString(), "content", "x"))));
      assertThat(outside.path("error").path("code").asString())
          .as(outside.toString())
          .isEqualTo("invalidParams");
      assertThat(outside.path("error").path("message").asString())
          .contains("outside the workspace");
      JsonNode results = editor.request("codeAnswer", Map.of("id", id, "results", List.of()));
      assertThat(results.path("error").path("message").asString()).contains("answered with files");

      JsonNode files =
          editor.request(
              "codeAnswer",
              Map.of(
                  "id",
                  id,
                  "files",
                  List.of(
                      Map.of("path", main.toString(), "content", renamedMain),
                      Map.of("path", user.toString(), "content", renamedUser))));
      assertThat(files.has("result")).as(files.toString()).isTrue();
      HttpResponse<String> proposed = answered(asked);
      assertThat(proposed.statusCode()).as(proposed.body()).isEqualTo(202);
      String change = body(proposed).path("change").asString();
      assertThat(body(proposed).path("state").asString()).isEqualTo("pending");

      JsonNode opened =
          editor.awaitNotification("changeOpened", c -> c.path("id").asString().equals(change));
      assertThat(opened.path("files")).hasSize(2);
      assertThat(opened.path("files").get(1).path("newContent").asString()).isEqualTo(renamedUser);
      assertThat(main).as("nothing is written before the user decides").hasContent(MAIN);

      JsonNode accepted = editor.request("acceptChange", Map.of("change", change));
      assertThat(accepted.has("result")).as(accepted.toString()).isTrue();
      assertThat(
              editor
                  .awaitNotification("changeClosed", c -> c.path("id").asString().equals(change))
                  .path("outcome")
                  .asString())
          .isEqualTo("accepted");
      JsonNode end = body(companion.get("/ide/code/changes/" + change + "?wait=10"));
      assertThat(end.path("state").asString()).as(end.toString()).isEqualTo("accepted");
      assertThat(main).hasContent(renamedMain);
      assertThat(user).hasContent(renamedUser);

      JsonNode again = editor.request("rejectChange", Map.of("change", change));
      assertThat(again.path("error").path("code").asString()).isEqualTo("ended");
      assertThat(again.path("error").path("outcome").asString()).isEqualTo("accepted");
      assertThat(
              editor
                  .request("acceptChange", Map.of("change", DiffId.random().value()))
                  .path("error")
                  .path("code")
                  .asString())
          .isEqualTo("unknownChange");
    }
  }
}
