package dev.companion4j.netbeans;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real CLI's {@code IdeClient} (Qwen Code 0.24.4 or Gemini CLI 0.61.0) in a Node process, driven
 * through test-peers/ide-client-driver.mjs: JSON commands in, answers and events out.
 */
final class CliDriver implements AutoCloseable {
  private static final AtomicInteger RUNS = new AtomicInteger();

  final String cli;
  private final Process process;
  private final Writer stdin;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<Json>> answers = new ConcurrentHashMap<>();
  private final List<Json> statuses = new CopyOnWriteArrayList<>();
  private volatile Json context;

  private CliDriver(String cli, Process process) {
    this.cli = cli;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readEvents, "ide-client-driver-" + cli);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the driver with the environment the companion in this JVM writes its discovery files for
   * (the test JVM's TMPDIR, QWEN_HOME and HOME), in {@code cwd}.
   */
  static CliDriver start(String cli, Path cwd, Path logDir) throws IOException {
    Path peers = Path.of(System.getProperty("companion4j.testPeers"));
    ProcessBuilder pb =
        new ProcessBuilder("node", peers.resolve("ide-client-driver.mjs").toString(), "--cli", cli);
    pb.directory(cwd.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("QWEN_CODE_IDE_") || k.startsWith("GEMINI_CLI_IDE_"));
    env.put("HOME", System.getenv("HOME"));
    env.put("TMPDIR", System.getenv("TMPDIR"));
    env.put("QWEN_HOME", System.getenv("QWEN_HOME"));
    // /.dockerenv exists on the test machines; without this Gemini dials host.docker.internal.
    env.put("SSH_CONNECTION", "1");
    Files.createDirectories(logDir);
    pb.redirectError(logDir.resolve(cli + "-" + RUNS.incrementAndGet() + ".log").toFile());
    return new CliDriver(cli, pb.start());
  }

  /**
   * Sends an op; the future completes with its answer (which may come much later, e.g. openDiff).
   */
  CompletableFuture<Json> send(String op, Map<String, Object> args) {
    int id = ids.incrementAndGet();
    CompletableFuture<Json> answer = new CompletableFuture<>();
    answers.put(id, answer);
    Map<String, Object> command = new LinkedHashMap<>(args);
    command.put("id", id);
    command.put("op", op);
    try {
      synchronized (stdin) {
        stdin.write(Json.write(command) + "\n");
        stdin.flush();
      }
    } catch (IOException e) {
      answer.completeExceptionally(e);
    }
    return answer;
  }

  /** Sends an op and waits for a successful answer. */
  Json call(String op, Map<String, Object> args) throws Exception {
    Json answer = send(op, args).get(60, TimeUnit.SECONDS);
    if (!answer.path("ok").asBoolean()) {
      throw new AssertionError(cli + " " + op + " failed: " + answer);
    }
    return answer;
  }

  Json call(String op) throws Exception {
    return call(op, Map.of());
  }

  /** The IDE context as the CLI stores it, or null before the first update. */
  Json context() {
    return context;
  }

  List<Json> statuses() {
    return statuses;
  }

  private void readEvents() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        Json node = Json.parse(line);
        if (node.has("event")) {
          if ("context".equals(node.path("event").asString())) {
            context = node.path("context");
          } else {
            statuses.add(node);
          }
        } else if (!node.path("id").isNull()) {
          CompletableFuture<Json> answer = answers.remove(node.path("id").asInt());
          if (answer != null) {
            answer.complete(node);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      answers.values().forEach(a -> a.completeExceptionally(e));
    }
    answers.values().forEach(a -> a.completeExceptionally(new IOException(cli + " driver exited")));
  }

  @Override
  public void close() throws Exception {
    try {
      synchronized (stdin) {
        stdin.close();
      }
    } catch (IOException ignored) {
      // Already gone.
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
