package dev.companion4j.netbeans;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code qwen serve} of Qwen Code 0.24.4 with the fake model server, run by the testkit's
 * {@code QwenDaemonPeer} in a JVM of its own: the booted platform hides the testkit from the tests.
 */
final class DaemonPeer implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  final String url;
  final Path workspace;

  /**
   * A {@code settings.json} for another Qwen Code on the same fake model (key: {@code
   * FAKE_MODEL_KEY=sk-fake-test-key}).
   */
  final String settings;

  private DaemonPeer(Process process, BufferedReader out, Json ready) {
    this.process = process;
    this.out = out;
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.url = ready.path("url").asString();
    this.workspace = Path.of(ready.path("workspace").asString());
    this.settings = ready.path("settings").asString();
  }

  /**
   * Starts the daemon for {@code workspace}, requiring {@code token}, and waits until it listens.
   */
  static DaemonPeer start(Path workspace, String token, Path log) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                java.toString(),
                "-cp",
                System.getProperty("companion4j.daemonPeerClasspath"),
                "-Dcompanion4j.testPeers=" + System.getProperty("companion4j.testPeers"),
                "dev.companion4j.testkit.QwenDaemonPeer",
                workspace.toString()));
    pb.environment().put("QWEN_SERVER_TOKEN", token);
    Files.createDirectories(log.getParent());
    pb.redirectError(log.toFile());
    Process process = pb.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String ready = out.readLine();
    if (ready == null) {
      throw new IOException("the daemon peer ended before its daemon listened; see " + log);
    }
    return new DaemonPeer(process, out, Json.parse(ready));
  }

  /** Kills the daemon and its agents (SIGKILL), as a crash would. */
  void kill() throws IOException {
    command("kill");
  }

  /** Starts the daemon again on its port, for the same workspace; its sessions are gone. */
  void restart() throws IOException {
    command("restart");
  }

  private void command(String command) throws IOException {
    in.write(command + "\n");
    in.flush();
    String answer = out.readLine();
    if (!("done " + command).equals(answer)) {
      throw new IOException("the daemon peer answered " + answer + " to " + command);
    }
  }

  @Override
  public void close() throws Exception {
    in.close();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
