package dev.companion4j.netbeans;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The fake model, and the command of a real agent ({@code qwen} or {@code gemini} in ACP mode) on
 * it, run by {@code AgentPeerMain} in a JVM of its own: the booted platform hides the testkit from
 * the tests.
 */
final class AgentPeer implements AutoCloseable {
  private final Process process;

  /** The agent's command: a script named as the agent, with its home and model set. */
  final String agent;

  /** The folder the agent's home sits beside, for the project. */
  final Path workspace;

  private AgentPeer(Process process, String agent, Path workspace) {
    this.process = process;
    this.agent = agent;
    this.workspace = workspace;
  }

  /**
   * Starts the peer for {@code kind} ({@code QWEN} or {@code GEMINI}) under {@code root}; its
   * errors go to {@code log}.
   */
  static AgentPeer start(String kind, Path root, Path log) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path build = Path.of(System.getProperty("companion4j.buildDir"));
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                java.toString(),
                "-cp",
                System.getProperty("companion4j.daemonPeerClasspath")
                    + File.pathSeparator
                    + build.resolve("test-classes"),
                "-Dcompanion4j.testPeers=" + System.getProperty("companion4j.testPeers"),
                "dev.companion4j.netbeans.AgentPeerMain",
                kind,
                root.toString()));
    Files.createDirectories(log.getParent());
    pb.redirectError(log.toFile());
    Process process = pb.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String ready = out.readLine();
    if (ready == null) {
      throw new IOException("the agent peer ended before it was ready; see " + log);
    }
    Json json = Json.parse(ready);
    return new AgentPeer(
        process, json.path("agent").asString(), Path.of(json.path("workspace").asString()));
  }

  /** Stops the fake model. */
  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
