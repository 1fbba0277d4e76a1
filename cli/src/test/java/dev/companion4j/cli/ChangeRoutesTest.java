package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiffId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The editor API's routes for a change of several files, on the companion {@code serve} builds: the
 * pending change in {@code GET /editor/state} and on the event stream, answered once by id.
 */
class ChangeRoutesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<String> stream = new CopyOnWriteArrayList<>();
  private RenameFixture fixture;
  private Path a;
  private Path b;
  private Map<Path, String> rename;

  @BeforeEach
  void start() throws Exception {
    fixture = RenameFixture.start(temp);
    a = fixture.a();
    b = fixture.b();
    rename = fixture.rename();
    HttpResponse<java.util.stream.Stream<String>> events =
        http.send(request("/editor/events/stream").build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(events.statusCode()).isEqualTo(200);
    Thread reader = new Thread(() -> events.body().forEach(stream::add), "change-events");
    reader.setDaemon(true);
    reader.start();
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private Companion companion() {
    return fixture.companion();
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion().port() + path))
        .header("Authorization", "Bearer " + companion().authToken())
        .timeout(WAIT);
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode state() throws Exception {
    return JSON.readTree(
        http.send(request("/editor/state").build(), HttpResponse.BodyHandlers.ofString()).body());
  }

  /** The data of the first event named {@code name} for change {@code id}. */
  private JsonNode awaitEvent(String name, String id) {
    return await()
        .atMost(WAIT)
        .until(
            () -> {
              for (int i = 0; i + 1 < stream.size(); i++) {
                if (stream.get(i).equals("event: " + name)
                    && stream.get(i + 1).startsWith("data: ")) {
                  JsonNode data = JSON.readTree(stream.get(i + 1).substring(6));
                  if (data.path("id").asString().equals(id)) {
                    return data;
                  }
                }
              }
              return null;
            },
            data -> data != null);
  }

  private String proposedId() throws Exception {
    await().atMost(WAIT).until(() -> state().path("pendingChanges").size() == 1);
    return state().path("pendingChanges").get(0).path("id").asString();
  }

  @Test
  void theStateAndStreamShowEveryFileAndAnAcceptWithAnEditedFileDecidesItOnce() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    String id = proposedId();

    JsonNode change = state().path("pendingChanges").get(0);
    assertThat(change.path("proposerName").asString()).isEqualTo("rename");
    assertThat(change.path("files")).hasSize(2);
    assertThat(change.path("files").get(1).path("path").asString()).isEqualTo(b.toString());
    assertThat(change.path("files").get(1).path("change").asString()).isEqualTo("modified");
    assertThat(change.path("files").get(1).path("originalContent").asString())
        .isEqualTo(Files.readString(b));
    assertThat(change.path("files").get(1).path("newContent").asString()).isEqualTo(rename.get(b));
    assertThat(awaitEvent("changeOpened", id).path("files")).hasSize(2);

    String edited = rename.get(b) + "// mine\n";
    HttpResponse<String> accepted =
        post(
            "/editor/changes/" + id + "/accept",
            JSON.writeValueAsString(
                Map.of("files", List.of(Map.of("path", b.toString(), "content", edited)))));
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(204);

    Map<Path, String> written = new LinkedHashMap<>(rename);
    written.put(b, edited);
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Accepted(written));
    assertThat(awaitEvent("changeClosed", id).path("outcome").asString()).isEqualTo("accepted");
    HttpResponse<String> again = post("/editor/changes/" + id + "/reject", "");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(again.body()).path("outcome").asString()).isEqualTo("accepted");
    assertThat(state().path("pendingChanges")).isEmpty();
    assertThat(Files.readString(b)).as("the companion writes no file").contains("run()");
  }

  @Test
  void anAcceptOverAFileChangedOnDiskIsRefusedNamingItAndEndsTheChange() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    String id = proposedId();
    Files.writeString(a, "class A {\n  void run() { /* the user's work */ }\n}\n");

    HttpResponse<String> refused = post("/editor/changes/" + id + "/accept", "");

    assertThat(refused.statusCode()).isEqualTo(409);
    JsonNode body = JSON.readTree(refused.body());
    assertThat(body.path("outcome").asString()).isEqualTo("changedOnDisk");
    assertThat(body.path("changedOnDisk").get(0).asString()).isEqualTo(a.toString());
    assertThat(body.path("error").asString()).contains("nothing was written");
    assertThat(outcome.get(10, TimeUnit.SECONDS))
        .isEqualTo(new ChangeOutcome.ChangedOnDisk(List.of(a)));
    assertThat(awaitEvent("changeClosed", id).path("changedOnDisk").get(0).asString())
        .isEqualTo(a.toString());
  }

  @Test
  void badAnswersAreRefusedWithAReasonAndTheChangeStaysPendingUntilRejected() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    String id = proposedId();

    assertThat(post("/editor/changes/nothex/accept", "").statusCode()).isEqualTo(400);
    assertThat(post("/editor/changes/" + id + "/accept", "{\"files\": 3}").body())
        .contains("files must be an array");
    HttpResponse<String> foreign =
        post(
            "/editor/changes/" + id + "/accept",
            "{\"files\": [{\"path\": \"" + temp.resolve("x") + "\", \"content\": \"x\"}]}");
    assertThat(foreign.statusCode()).isEqualTo(400);
    assertThat(foreign.body()).contains("holds no file");
    assertThat(post("/editor/changes/" + DiffId.random() + "/reject", "").statusCode())
        .isEqualTo(404);
    assertThat(outcome).isNotDone();

    assertThat(post("/editor/changes/" + id + "/reject", "").statusCode()).isEqualTo(204);
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Rejected());
    assertThat(awaitEvent("changeClosed", id).path("outcome").asString()).isEqualTo("rejected");
  }
}
