package dev.companion4j.cli.attach;

import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.ProcessLines;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code companion4j attach} from the shaded jar, spoken to as an editor plugin speaks to it. */
final class AttachProcess implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(20);

  private final Process process;
  private final OutputStream stdin;
  private final List<JsonNode> lines = new CopyOnWriteArrayList<>();
  private final List<String> unreadable = new CopyOnWriteArrayList<>();
  private final StringBuffer stderr = new StringBuffer();
  private final AtomicInteger ids = new AtomicInteger();

  private AttachProcess(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
    ProcessLines.follow(
        "attach-stdout", process.getInputStream(), ProcessLines.jsonObjects(lines, unreadable));
    ProcessLines.follow(
        "attach-stderr", process.getErrorStream(), line -> stderr.append(line).append('\n'));
  }

  /**
   * {@code attach args…} in {@code env}'s workspace, with {@code variables} set or replaced as
   * well.
   */
  static AttachProcess start(CliEnvironment env, Map<String, String> variables, String... args) {
    List<String> command = new ArrayList<>(List.of("attach"));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(CompanionProcess.command(command.toArray(String[]::new)))
            .directory(env.workspace().toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    pb.environment().putAll(variables);
    try {
      return new AttachProcess(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static AttachProcess start(CliEnvironment env, String... args) {
    return start(env, Map.of(), args);
  }

  /** Writes {@code text} as it is, with no line end added. */
  void write(String text) {
    write(text.getBytes(StandardCharsets.UTF_8));
  }

  void write(byte[] bytes) {
    try {
      stdin.write(bytes);
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void notify(String method, Object params) {
    ObjectNode message = CompanionProcess.JSON.createObjectNode().put("method", method);
    message.set("params", CompanionProcess.JSON.valueToTree(params));
    write(CompanionProcess.JSON.writeValueAsString(message) + "\n");
  }

  /** Sends a request and waits for its one answer: the whole line, with result or error. */
  JsonNode request(String method, Object params) {
    int id = ids.incrementAndGet();
    ObjectNode message =
        CompanionProcess.JSON.createObjectNode().put("id", id).put("method", method);
    if (params != null) {
      message.set("params", CompanionProcess.JSON.valueToTree(params));
    }
    write(CompanionProcess.JSON.writeValueAsString(message) + "\n");
    return answer(id);
  }

  JsonNode request(String method) {
    return request(method, null);
  }

  /** The answer to request {@code id}, awaited. */
  JsonNode answer(Object id) {
    return await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .alias("the answer to " + id + "; so far: " + lines + "; stderr:\n" + stderr)
        .until(() -> answers(id), a -> !a.isEmpty())
        .get(0);
  }

  /** The first notification {@code method} whose params match, awaited. */
  JsonNode awaitNotification(String method, Predicate<JsonNode> params) {
    return awaitLine(
            l -> method.equals(l.path("method").asString(null)) && params.test(l.path("params")))
        .path("params");
  }

  JsonNode awaitNotification(String method) {
    return awaitNotification(method, p -> true);
  }

  /** The answers to request {@code id} so far. */
  List<JsonNode> answers(Object id) {
    JsonNode want = CompanionProcess.JSON.valueToTree(id);
    return lines.stream().filter(l -> want.equals(l.get("id")) && !l.has("method")).toList();
  }

  /** The notifications {@code method} so far. */
  List<JsonNode> notifications(String method) {
    return lines.stream()
        .filter(l -> method.equals(l.path("method").asString(null)))
        .map(l -> l.path("params"))
        .toList();
  }

  private JsonNode awaitLine(Predicate<JsonNode> match) {
    return await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .alias("a line from attach; so far: " + lines + "; stderr:\n" + stderr)
        .until(() -> lines.stream().filter(match).findFirst(), java.util.Optional::isPresent)
        .orElseThrow();
  }

  /** Every line attach wrote to stdout that is not a JSON object: there must be none. */
  List<String> unreadable() {
    return List.copyOf(unreadable);
  }

  String stderr() {
    return stderr.toString();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Closes stdin, as an editor that quits does, and returns the exit code. */
  int closeInput() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException e) {
      // Already closed.
    }
    if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("attach did not end with its input; stderr:\n" + stderr);
    }
    return process.exitValue();
  }

  /**
   * SIGTERM, as a session manager or an editor's job control ends a process, and the exit code.
   * {@link Process#destroy()} closes attach's pipes too, so its input ends at the same time.
   */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("attach did not end on SIGTERM; stderr:\n" + stderr);
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      closeInput();
    }
  }
}
