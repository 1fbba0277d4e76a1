package dev.companion4j.cli.bridge;

import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.ProcessLines;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * {@code companion4j bridge} from the shaded jar, spoken to as a CLI speaks to it: JSON-RPC lines
 * on stdin, every stdout line kept (and any that is not a JSON object, which the bridge must never
 * write), stderr kept.
 */
final class BridgeProcess implements AutoCloseable {
  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-client\",\"version\":\"1\"}}}";
  static final String INITIALIZED =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Process process;
  private final OutputStream stdin;
  private final List<JsonNode> messages = new CopyOnWriteArrayList<>();
  private final List<String> notJson = new CopyOnWriteArrayList<>();
  private final StringBuffer stderr = new StringBuffer();

  private BridgeProcess(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
    ProcessLines.follow(
        "bridge-stdout", process.getInputStream(), ProcessLines.jsonObjects(messages, notJson));
    ProcessLines.follow(
        "bridge-stderr", process.getErrorStream(), line -> stderr.append(line).append('\n'));
  }

  /** Starts {@code companion4j bridge args…} in {@code cwd} with exactly {@code env}. */
  static BridgeProcess start(Map<String, String> env, Path cwd, String... args) {
    ProcessBuilder pb =
        new ProcessBuilder(CompanionProcess.command(prepend("bridge", args)))
            .directory(cwd.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    try {
      return new BridgeProcess(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String[] prepend(String first, String... rest) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the bridge is gone; its stderr:\n" + stderr, e);
    }
  }

  /** Sends the handshake and waits for its answer. */
  JsonNode handshake() {
    send(INITIALIZE);
    JsonNode answer = answer("1");
    send(INITIALIZED);
    return answer;
  }

  /**
   * Waits for the one message answering request {@code id} (its JSON text: {@code 1}, {@code "x"}
   * or {@code null}).
   */
  JsonNode answer(String id) {
    return await("an answer to " + id + "; stderr:\n" + stderr)
        .atMost(WAIT)
        .until(() -> answers(id), list -> !list.isEmpty())
        .get(0);
  }

  List<JsonNode> answers(String id) {
    return messages.stream()
        .filter(m -> !m.has("method") && String.valueOf(m.get("id")).equals(id))
        .toList();
  }

  List<JsonNode> messages() {
    return List.copyOf(messages);
  }

  /** Lines on stdout that are not JSON objects: there must be none. */
  List<String> notJson() {
    return List.copyOf(notJson);
  }

  String stderr() {
    return stderr.toString();
  }

  void closeStdin() {
    try {
      stdin.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGTERM, as Gemini CLI closes its stdio server. */
  void terminate() {
    process.destroy();
  }

  int awaitExit() throws InterruptedException {
    if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("the bridge did not exit; stderr:\n" + stderr);
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
