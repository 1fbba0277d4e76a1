package dev.companion4j.extension.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The stdio server's input as the CLI may write it; CommandLineIT drives the real process. */
class StdioGuardTest {
  /** Only stops a server that never ends from hanging the build; nothing here measures speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(30);

  @Test
  void everyAnswerOwedGoesOutBeforeTheServerEndsWithItsInputWhateverTheLineEndings(
      @TempDir Path temp) {
    Path workspace = temp.resolve("ws");
    // A carriage return is JSON whitespace, but a line end to the SDK's reader: it must not split a
    // message.
    String input =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\r\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
            + "\n   \n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":7}\n"
            + "{\"jsonrpc\":\"2.0\",\r\"id\":2,\r\"method\":\"tools/call\",\"params\":{\"name\":\"ide_status\",\"arguments\":{}}}\r\n";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IdeToolsServer server =
        new IdeToolsServer(
            new IdeLink(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"))),
            workspace,
            "test");

    assertTimeoutPreemptively(
        HANG_GUARD,
        () ->
            server.serve(
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                out,
                new CountDownLatch(1)));

    List<JsonNode> answers =
        out.toString(StandardCharsets.UTF_8).lines().map(JsonMapper.shared()::readTree).toList();
    assertThat(answers)
        .as("blank lines and a wrong notification get no answer")
        .extracting(a -> a.path("id").asInt())
        .containsExactly(1, 2);
    assertThat(answers.get(1).path("result").path("content").path(0).path("text").asString())
        .contains("No IDE companion serves " + workspace);
  }
}
