package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** A host's stateless MCP server on {@link Companion.Builder#mcpRoute}, guarded as {@code /mcp}. */
class McpRouteTest {
  private static final String PATH = "/tools";
  private static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":%s}}";

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aHostsMcpServerAnswersTheTokenOnlyAndItsRefusalsCarryNoJavaInternals(@TempDir Path temp)
      throws Exception {
    Companion companion =
        CompanionFixture.builder(
                temp, new RecordingHost(Files.createDirectories(temp.resolve("ws"))))
            .mcpRoute(PATH, echoServer())
            .build();
    companion.start();
    try {
      String token = companion.authToken();
      HttpResponse<String> answered =
          post(companion, token, null, CALL.formatted("{\"x\":\"hi\"}"));
      assertThat(answered.statusCode()).isEqualTo(200);
      assertThat(answered.body()).contains("\"text\":\"echo hi\"");

      HttpResponse<String> anonymous = post(companion, null, null, CALL.formatted("{}"));
      assertThat(anonymous.statusCode()).isEqualTo(401);
      // Its body unread, the refused connection is not offered for reuse.
      assertThat(anonymous.headers().firstValue("Connection")).hasValue("close");
      // Not even the companion's own page: an agent sends no Origin.
      assertThat(
              post(companion, token, "http://127.0.0.1:" + companion.port(), CALL.formatted("{}"))
                  .statusCode())
          .isEqualTo(403);

      for (String bad :
          new String[] {"not json", "[1,2]", "{\"id\":1}", CALL.formatted("[\"hi\"]")}) {
        HttpResponse<String> refused = post(companion, token, null, bad);
        assertThat(refused.body())
            .as(bad)
            .contains("\"jsonrpc\":\"2.0\"")
            .doesNotContain("Exception", "stackTrace", "jackson", "java.");
      }
      HttpResponse<String> get =
          http.send(
              HttpRequest.newBuilder(uri(companion))
                  .header("Authorization", "Bearer " + token)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(get.statusCode()).isEqualTo(405);
      assertThat(get.body()).doesNotContain("Exception");
    } finally {
      companion.close();
    }
  }

  /** An MCP server without sessions with one tool, {@code echo {x}}. */
  private static HttpServletStatelessServerTransport echoServer() {
    HttpServletStatelessServerTransport transport =
        HttpServletStatelessServerTransport.builder()
            .jsonMapper(new JacksonMcpJsonMapper(JsonMapper.shared()))
            .messageEndpoint(PATH)
            .build();
    McpServer.sync(transport)
        .serverInfo("echo", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .tools(
            new McpStatelessServerFeatures.SyncToolSpecification(
                McpSchema.Tool.builder().name("echo").inputSchema(Map.of("type", "object")).build(),
                (context, request) ->
                    McpSchema.CallToolResult.builder()
                        .addTextContent("echo " + request.arguments().get("x"))
                        .build()))
        .build();
    return transport;
  }

  private HttpResponse<String> post(Companion companion, String token, String origin, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(companion))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (origin != null) {
      request.header("Origin", origin);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(Companion companion) {
    return URI.create("http://127.0.0.1:" + companion.port() + PATH);
  }
}
