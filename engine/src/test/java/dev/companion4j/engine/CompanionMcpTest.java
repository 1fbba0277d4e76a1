package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.McpTapClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The engine's MCP face, seen through the official MCP Java SDK client on loopback. */
class CompanionMcpTest {
  private static final JsonMapper JSON = JsonMapper.shared();
  @TempDir Path temp;
  Path workspace;
  RecordingHost host;
  Companion companion;
  McpTapClient client;

  @BeforeEach
  void start() throws Exception {
    workspace = Files.createDirectories(temp.resolve("ws"));
    host = new RecordingHost(workspace);
    companion = companion(Companion.builder(host));
    client = new McpTapClient(companion.port(), companion.authToken(), "test-client");
  }

  private Companion companion(Companion.Builder builder) throws Exception {
    Companion c =
        builder
            .discoveryLocations(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen")))
            .build();
    c.start();
    return c;
  }

  @AfterEach
  void stop() {
    client.close();
    companion.close();
  }

  @Test
  void listsBothDiffToolsWithInputSchemas() {
    List<McpSchema.Tool> tools = client.client.listTools().tools();

    assertThat(tools)
        .extracting(McpSchema.Tool::name)
        .containsExactlyInAnyOrder("openDiff", "closeDiff");
    McpSchema.Tool open =
        tools.stream().filter(t -> t.name().equals("openDiff")).findFirst().orElseThrow();
    assertThat(open.inputSchema()).containsEntry("required", List.of("filePath", "newContent"));
  }

  @Test
  void openDiffAcknowledgesAtOnceAndTheAcceptedContentReachesOnlyTheOpeningClient()
      throws Exception {
    Path file = Files.writeString(workspace.resolve("a.txt"), "old\n");
    try (McpTapClient other = new McpTapClient(companion.port(), companion.authToken(), "other")) {
      McpSchema.CallToolResult ack =
          client.call("openDiff", Map.of("filePath", file.toString(), "newContent", "new\n"));

      assertThat(ack.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(ack.content()).isEmpty();
      assertThat(host.shown)
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.originalContent()).isEqualTo("old\n");
                assertThat(d.newContent()).isEqualTo("new\n");
              });

      assertThat(host.reviews.get(host.shown.get(0).id()).accept("edited\n"))
          .isInstanceOf(AnswerResult.Sent.class);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !client.received("ide/diffAccepted").isEmpty());
      assertThat(client.received("ide/diffAccepted").get(0).params())
          .containsEntry("filePath", file.toString())
          .containsEntry("content", "edited\n");
      assertThat(other.received("ide/diffAccepted")).isEmpty();
      assertThat(Files.readString(file)).as("the engine never writes the file").isEqualTo("old\n");
    }
  }

  @Test
  void rejectSendsDiffRejected() throws Exception {
    Path file = workspace.resolve("new.txt");
    client.call("openDiff", Map.of("filePath", file.toString(), "newContent", "x"));
    assertThat(host.shown.get(0).isNewFile()).isTrue();

    DiffId id = host.shown.get(0).id();
    assertThat(companion.rejectDiff(id))
        .isEqualTo(new AnswerResult.Sent(new DiffOutcome.Rejected()));
    assertThat(companion.rejectDiff(id))
        .as("answered once")
        .isEqualTo(new AnswerResult.Ended(new DiffOutcome.Rejected()));
    assertThat(companion.acceptDiff(DiffId.random(), null)).isEqualTo(new AnswerResult.Unknown());

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !client.received("ide/diffRejected").isEmpty());
    assertThat(client.received("ide/diffRejected").get(0).params())
        .isEqualTo(Map.of("filePath", file.toString()));
  }

  @Test
  void closeDiffReturnsTheEditedTextAsJsonAndHonoursSuppressNotification() throws Exception {
    Path file = Files.writeString(workspace.resolve("b.txt"), "b");
    client.call("openDiff", Map.of("filePath", file.toString(), "newContent", "proposed"));
    host.editedText = "edited in the editor";

    McpSchema.CallToolResult closed =
        client.call("closeDiff", Map.of("filePath", file.toString(), "suppressNotification", true));

    assertThat(text(closed)).isEqualTo("{\"content\":\"edited in the editor\"}");
    assertThat(companion.pendingDiffs()).isEmpty();
    // A later notification proves the earlier closeDiff sent none.
    Path marker = workspace.resolve("marker.txt");
    client.call("openDiff", Map.of("filePath", marker.toString(), "newContent", "m"));
    companion.rejectDiff(companion.pendingDiffs().get(0).id());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !client.received("ide/diffRejected").isEmpty());
    assertThat(client.received("ide/diffRejected"))
        .extracting(r -> r.params().get("filePath"))
        .containsExactly(marker.toString());
  }

  @Test
  void closeDiffOfAnUnknownPathAnswersNullContent() {
    McpSchema.CallToolResult closed =
        client.call("closeDiff", Map.of("filePath", workspace.resolve("none").toString()));

    assertThat(closed.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(text(closed)).isEqualTo("{\"content\":null}");
  }

  @Test
  void aSecondOpenDiffForThePathReplacesTheFirst() {
    String path = workspace.resolve("c.txt").toString();
    client.call("openDiff", Map.of("filePath", path, "newContent", "first"));
    client.call("openDiff", Map.of("filePath", path, "newContent", "second"));

    assertThat(companion.pendingDiffs())
        .singleElement()
        .extracting(PendingDiff::newContent)
        .isEqualTo("second");
    assertThat(host.closed).extracting(PendingDiff::newContent).containsExactly("first");
    assertThat(host.threads)
        .as("every host call on the engine thread")
        .containsOnly("companion4j-engine");
  }

  @Test
  void badArgumentsGetPreciseToolErrorsAndTheCompanionKeepsServing() throws Exception {
    Map<String, Object> noPath = Map.of("newContent", "x");
    Map<String, Object> relative = Map.of("filePath", "src/A.java", "newContent", "x");
    Map<String, Object> outside =
        Map.of("filePath", temp.resolve("elsewhere/A.java").toString(), "newContent", "x");
    Map<String, Object> directory = Map.of("filePath", workspace.toString(), "newContent", "x");
    Map<String, Object> numberContent =
        new HashMap<>(Map.of("filePath", workspace.resolve("d.txt").toString()));
    numberContent.put("newContent", 42);

    assertThat(errorOf("openDiff", noPath)).isEqualTo("filePath is required");
    assertThat(errorOf("openDiff", relative)).isEqualTo("filePath must be absolute: src/A.java");
    assertThat(errorOf("openDiff", outside)).startsWith("filePath is outside every workspace root");
    assertThat(errorOf("openDiff", directory)).startsWith("filePath names a directory");
    assertThat(errorOf("openDiff", numberContent)).isEqualTo("newContent must be a string");
    assertThat(errorOf("closeDiff", Map.of("filePath", "rel")))
        .isEqualTo("filePath must be absolute: rel");
    assertThatThrownBy(() -> client.call("deleteEverything", Map.of()))
        .hasMessageContaining("Unknown tool");
    assertThat(host.shown).isEmpty();

    Path ok = workspace.resolve("ok.txt");
    assertThat(
            client
                .call("openDiff", Map.of("filePath", ok.toString(), "newContent", "fine"))
                .isError())
        .isNotEqualTo(true);
    assertThat(companion.pendingDiffs()).hasSize(1);
  }

  @Test
  void aHostThatCannotShowTheDiffTurnsIntoAToolError() {
    host.refuseWith = "no editor window is open";

    String error =
        errorOf(
            "openDiff",
            Map.of("filePath", workspace.resolve("e.txt").toString(), "newContent", "x"));

    assertThat(error).endsWith("no editor window is open");
    assertThat(companion.pendingDiffs()).isEmpty();
  }

  @Test
  void aHostTooSlowToShowTheDiffTurnsIntoAToolErrorAndTheProposalIsWithdrawn() {
    CountDownLatch held = new CountDownLatch(1);
    host.showHeld = held;
    Path file = workspace.resolve("slow.txt");
    try {
      CompletableFuture<McpSchema.CallToolResult> answer =
          CompletableFuture.supplyAsync(
              () ->
                  client.call("openDiff", Map.of("filePath", file.toString(), "newContent", "x")));

      await().atMost(Duration.ofSeconds(15)).until(answer::isDone);
      assertThat(answer.join().isError()).isTrue();
      assertThat(text(answer.join()))
          .isEqualTo(
              "The editor did not show the diff for "
                  + file
                  + " within 5 s; the proposal was withdrawn");
      assertThat(companion.pendingDiffs()).isEmpty();
    } finally {
      held.countDown();
    }
    // Shown after all, too late: its view closes again, and no outcome can follow.
    await().atMost(Duration.ofSeconds(10)).until(() -> host.closed.size() == 1);
    assertThat(host.reviews.get(host.closed.get(0).id()).accept(null))
        .isInstanceOf(AnswerResult.Ended.class);
    assertThat(client.received("ide/diffAccepted")).isEmpty();
  }

  @Test
  void aNewClientGetsTheCurrentContextAsSoonAsItsStreamOpens() throws Exception {
    Path file = Files.writeString(workspace.resolve("ctx.txt"), "c");
    companion.editorEvent(new EditorEvent.CursorMoved(file, 2, 5));
    await().atMost(Duration.ofSeconds(5)).until(() -> companion.context().activeFile().isPresent());

    try (McpTapClient late = new McpTapClient(companion.port(), companion.authToken(), "late")) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !late.received("ide/contextUpdate").isEmpty());
      Map<String, Object> params = late.received("ide/contextUpdate").get(0).params();
      assertThat(params.toString())
          .contains(file.toString())
          .contains("line=2")
          .contains("character=5");
    }
  }

  @Test
  void burstsOfEditorEventsAreDebouncedIntoOneUpdate() throws Exception {
    Path file = Files.writeString(workspace.resolve("burst.txt"), "b");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !client.received("ide/contextUpdate").isEmpty());
    int before = client.received("ide/contextUpdate").size();

    for (int column = 1; column <= 20; column++) {
      companion.editorEvent(new EditorEvent.CursorMoved(file, 1, column));
    }

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.received("ide/contextUpdate").size() > before);
    McpTapClient.Received last =
        client.received("ide/contextUpdate").get(client.received("ide/contextUpdate").size() - 1);
    assertThat(last.params().toString()).contains("character=20");
    assertThat(client.received("ide/contextUpdate").size() - before).isLessThanOrEqualTo(2);
  }

  @Test
  void aClientThatLeavesTakesItsPendingDiffsWithIt() throws Exception {
    McpTapClient leaving = new McpTapClient(companion.port(), companion.authToken(), "leaving");
    Path file = workspace.resolve("gone.txt");
    leaving.call("openDiff", Map.of("filePath", file.toString(), "newContent", "x"));
    assertThat(companion.pendingDiffs()).hasSize(1);

    leaving.close();

    await().atMost(Duration.ofSeconds(10)).until(() -> companion.pendingDiffs().isEmpty());
    assertThat(host.closed).extracting(PendingDiff::filePath).containsExactly(file.toString());
    assertThat(companion.clients())
        .extracting(ConnectedClient::name)
        .containsExactly("test-client");
  }

  @Test
  void refusesHandshakesBeyondTheClientCap() throws Exception {
    client.close();
    companion.close();
    companion = companion(Companion.builder(host).maxClients(1));
    client = new McpTapClient(companion.port(), companion.authToken(), "test-client");

    assertThatThrownBy(() -> new McpTapClient(companion.port(), companion.authToken(), "second"))
        .hasStackTraceContaining("503");
    assertThat(client.client.listTools().tools()).hasSize(2);
  }

  @Test
  void malformedAndOversizeBodiesGetCleanErrorsAndServingGoesOn() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> malformed =
        http.send(
            mcpPost("{\"jsonrpc\":\"2.0\",\"method\":"), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> notAnObject =
        http.send(mcpPost("42"), HttpResponse.BodyHandlers.ofString());
    // Written whole before the answer is read, as a CLI's upload is: nearly twice the limit is
    // more than the sockets' buffers hold, so a companion that answered without reading the body
    // would reset this write or the answer after it.
    String oversize = RawMcp.postWhole(companion.port(), companion.authToken(), 19 * 1024 * 1024);

    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body())
        .contains("-32700")
        .contains("not valid JSON")
        .doesNotContain("Exception");
    assertThat(notAnObject.statusCode()).isEqualTo(400);
    assertThat(notAnObject.body()).contains("-32600");
    assertThat(oversize).startsWith("HTTP/1.1 413 ").contains("request body exceeds the limit");
    assertThat(client.client.listTools().tools()).hasSize(2);
  }

  @Test
  void aToolCallWhoseArgumentsAreNoObjectGetsAnInvalidParamsAnswer() throws Exception {
    String session = RawMcp.initialize(companion.port(), companion.authToken());
    List<String> badParams =
        List.of(
            "{\"name\":\"openDiff\",\"arguments\":[\"/etc/passwd\",\"x\"]}",
            "{\"name\":\"openDiff\",\"arguments\":\"filePath=/etc/passwd\"}",
            "{\"name\":\"closeDiff\",\"arguments\":42}",
            "{\"name\":\"openDiff\",\"arguments\":true}",
            "{\"name\":7,\"arguments\":{}}",
            "{\"arguments\":{}}",
            "{\"name\":\"openDiff\",\"arguments\":{},\"_meta\":5}",
            "[\"openDiff\"]");
    int id = 100;
    for (String params : badParams) {
      id++;
      HttpResponse<String> answer =
          RawMcp.post(
              companion.port(),
              companion.authToken(),
              session,
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + id
                  + ",\"method\":\"tools/call\",\"params\":"
                  + params
                  + "}");

      assertThat(answer.body()).as(params).isNotBlank();
      JsonNode rpc = JSON.readTree(answer.body());
      assertThat(rpc.path("id").asInt()).as(params).isEqualTo(id);
      assertThat(rpc.path("error").path("code").asInt()).as(answer.body()).isEqualTo(-32602);
      assertThat(rpc.path("error").path("message").asString())
          .as(params)
          .startsWith("Invalid params: ")
          .doesNotContain("Exception", "jackson", "java.");
    }
    assertThat(host.shown).isEmpty();
    HttpResponse<String> fine =
        RawMcp.post(
            companion.port(),
            companion.authToken(),
            session,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"closeDiff\",\"arguments\":null}}");
    assertThat(fine.body())
        .as("no arguments at all is the tool's to refuse")
        .contains("filePath is required");
  }

  @Test
  void aHostThatFailsUnexpectedlyIsReportedInOurWordsNotItsException() {
    host.crashWith =
        new IllegalStateException(
            "java.lang.NullPointerException: Cannot invoke \"Object.toString()\" because \"x\" is null");
    Path file = workspace.resolve("crash.txt");

    String error = errorOf("openDiff", Map.of("filePath", file.toString(), "newContent", "x"));

    assertThat(error)
        .isEqualTo("The editor failed to show the diff for " + file + "; its log says why");
    assertThat(companion.pendingDiffs()).isEmpty();
  }

  @Test
  void toStringNeverShowsTheToken() {
    assertThat(companion.toString())
        .doesNotContain(companion.authToken())
        .contains("port=" + companion.port());
  }

  private HttpRequest mcpPost(String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/mcp"))
        .header("Authorization", "Bearer " + companion.authToken())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private String errorOf(String tool, Map<String, Object> args) {
    McpSchema.CallToolResult result = client.call(tool, args);
    assertThat(result.isError()).as("isError for " + args).isTrue();
    return text(result);
  }

  private static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }
}
