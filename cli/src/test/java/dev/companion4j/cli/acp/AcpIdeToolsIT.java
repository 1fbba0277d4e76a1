package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * {@code companion4j serve --agent qwen|gemini}: the chat agent gets the companion's IDE tools at
 * {@code session/new} and a call answers what the editor told the companion, as the model receives
 * it. The real agent, in a home of its own with default settings, against the fake model.
 */
class AcpIdeToolsIT {
  private static final Duration TURN = Duration.ofSeconds(90);

  @TempDir Path dir;
  private ServedAgent agent;
  private CompanionProcess companion;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theAgentsToolCallGetsTheDiagnosticsTheEditorReported(Kind kind) throws Exception {
    agent = new ServedAgent(dir, kind);
    companion = agent.serve();
    await().atMost(TURN).until(() -> !state().path("sessionId").asString("").isEmpty());
    Path broken = ServedAgent.reportJavacError(companion, agent.workspace());

    // Qwen Code 0.24.4 connects a session's MCP servers in the background and its ACP prompts do
    // not wait for them: asked in the first moment, it has no such tool yet, and is asked again,
    // as a user would.
    String result = "";
    for (int asked = 1; result.isEmpty() || result.contains("not registered"); asked++) {
      assertThat(asked).as("asked again after: " + result).isLessThanOrEqualTo(5);
      prompt("What does the editor report? " + call(kind, "get_diagnostics"));
      result = awaitToolResult(asked);
      await()
          .atMost(TURN)
          .until(() -> !state().path("conversation").path("turnRunning").asBoolean(true));
    }
    assertThat(result)
        .contains("The editor reports 1 error.")
        .contains(broken + " (1 error):")
        .contains("line 3, column 13: error: " + ServedAgent.JAVAC_ERROR + " [javac]");
  }

  @Test
  void theToolsRouteWantsTheTokenAndRefusesAForeignOrigin() throws Exception {
    agent = new ServedAgent(dir, Kind.QWEN);
    companion = agent.serve();
    String initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    assertThat(toolsRoute(initialize, Map.of()).statusCode()).isEqualTo(401);
    assertThat(
            toolsRoute(
                    initialize,
                    Map.of(
                        "Authorization",
                        "Bearer " + companion.token(),
                        "Origin",
                        "https://elsewhere.example"))
                .statusCode())
        .isEqualTo(403);
    HttpResponse<String> served =
        toolsRoute(initialize, Map.of("Authorization", "Bearer " + companion.token()));
    assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
    assertThat(served.body()).contains("\"name\":\"companion4j\"");
  }

  private void prompt(String text) {
    HttpResponse<String> sent = companion.post("/chat/acp/prompt", Map.of("text", text));
    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(204);
  }

  /**
   * The {@code n}th tool result the fake model received, answering the agent's permission requests
   * (mode {@code default} may ask before an MCP tool runs) as a user would, once.
   */
  private String awaitToolResult(int n) {
    String[] result = new String[1];
    await()
        .atMost(TURN)
        .until(
            () -> {
              Optional<FakeModelServer.Request> answered =
                  agent.model.requests().stream()
                      .filter(r -> r.lastRole().equals("tool"))
                      .skip(n - 1)
                      .findFirst();
              if (answered.isPresent()) {
                result[0] = answered.get().lastText();
                return true;
              }
              ServedAgent.allowOnce(companion, state());
              return false;
            });
    return result[0];
  }

  /** The fake model's directive for calling one of the IDE tools, named as each agent names it. */
  private static String call(Kind kind, String tool) {
    return kind == Kind.QWEN
        ? "[[call tool_call {\"name\":\"mcp__companion4j__" + tool + "\",\"arguments\":{}}]]"
        : "[[call mcp_companion4j_" + tool + " {}]]";
  }

  private HttpResponse<String> toolsRoute(String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/ide-tools"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode state() {
    return CompanionProcess.JSON.readTree(companion.get("/chat/acp/state").body());
  }
}
