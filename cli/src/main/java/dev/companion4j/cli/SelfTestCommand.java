package dev.companion4j.cli;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/**
 * {@code companion4j selftest}: starts a companion in a scratch folder, completes one MCP handshake
 * with it and stops. It checks an installation, and the launcher runs it once per build to record
 * the class-data-sharing archive that makes later starts fast.
 */
@Command(
    name = "selftest",
    mixinStandardHelpOptions = true,
    description =
        "Checks this installation: starts a scratch companion, talks MCP to it once, stops.")
final class SelfTestCommand implements Callable<Integer> {
  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"companion4j-selftest\",\"version\":\"1\"}}}";

  @Override
  public Integer call() throws Exception {
    Path scratch = Files.createTempDirectory("companion4j-selftest");
    try {
      Path workspace = Files.createDirectories(scratch.resolve("workspace"));
      try (HeadlessCompanion headless =
          HeadlessCompanion.build(
              new IdeInfo("selftest", "Self-test"),
              List.of(workspace),
              builder ->
                  builder.discoveryLocations(
                      new DiscoveryLocations(scratch.resolve("tmp"), scratch.resolve("qwen"))))) {
        Companion companion = headless.companion();
        companion.start();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/mcp"))
                    .header("Authorization", "Bearer " + companion.authToken())
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(INITIALIZE))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 || !response.body().contains("companion4j")) {
          System.err.println(
              "selftest: the MCP handshake failed with HTTP " + response.statusCode());
          return 1;
        }
      }
      System.out.println("selftest: ok");
      return 0;
    } finally {
      try (Stream<Path> files = Files.walk(scratch)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
