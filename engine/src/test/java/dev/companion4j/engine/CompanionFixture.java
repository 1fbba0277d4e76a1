package dev.companion4j.engine;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.McpTapClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * A started companion over a workspace in {@code temp}, with a recording host and one MCP client.
 */
record CompanionFixture(
    Path workspace, RecordingHost host, Companion companion, McpTapClient client)
    implements AutoCloseable {

  static CompanionFixture start(Path temp, CompanionListener... listeners) throws IOException {
    return start(temp, Set.of(), listeners);
  }

  /** A companion whose host declares {@code features}. */
  static CompanionFixture start(
      Path temp, Set<HostFeature> features, CompanionListener... listeners) throws IOException {
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    RecordingHost host = new RecordingHost(workspace);
    host.features = features;
    Companion.Builder builder = builder(temp, host);
    for (CompanionListener listener : listeners) {
      builder.listener(listener);
    }
    Companion companion = builder.build();
    companion.start();
    return new CompanionFixture(
        workspace,
        host,
        companion,
        new McpTapClient(companion.port(), companion.authToken(), "test-client"));
  }

  /** A builder for {@code host} whose discovery files go under {@code temp}. */
  static Companion.Builder builder(Path temp, CompanionHost host) {
    return Companion.builder(host)
        .discoveryLocations(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen")));
  }

  @Override
  public void close() {
    client.close();
    companion.close();
  }
}
