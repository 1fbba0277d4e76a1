package dev.companion4j.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real CLI's own {@code IdeClient} (Qwen Code or Gemini CLI, from the pinned npm packages),
 * driven from Java through {@code test-peers/ide-client-driver.mjs}: the exact code users run.
 */
public final class CliDriver implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.shared();
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** The CLIs under test. */
  public enum Cli {
    QWEN("qwen", "QWEN_CODE_IDE_SERVER_PORT"),
    GEMINI("gemini", "GEMINI_CLI_IDE_SERVER_PORT");

    final String flag;
    final String portVariable;

    Cli(String flag, String portVariable) {
      this.flag = flag;
      this.portVariable = portVariable;
    }

    /** The variable that names the companion's port for this CLI. */
    public String portVariable() {
      return portVariable;
    }
  }

  private final Cli cli;
  private final Process process;
  private final OutputStream stdin;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<JsonNode> events = new CopyOnWriteArrayList<>();
  private final StringBuffer stderr = new StringBuffer();

  private CliDriver(Cli cli, Process process) {
    this.cli = cli;
    this.process = process;
    this.stdin = process.getOutputStream();
    Thread reader = new Thread(this::readStdout, "cli-driver-" + cli.flag);
    reader.setDaemon(true);
    reader.start();
    Thread errors = new Thread(this::readStderr, "cli-driver-err-" + cli.flag);
    errors.setDaemon(true);
    errors.start();
  }

  /**
   * Starts a CLI's IdeClient in {@code cwd} with exactly {@code env} (plus nothing inherited).
   */
  public static CliDriver start(Cli cli, Path cwd, Map<String, String> env) {
    ProcessBuilder pb = new ProcessBuilder("node", TestPeers.ideClientDriver().toString(), "--cli", cli.flag);
    pb.directory(cwd.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    try {
      return new CliDriver(cli, pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start node; is Node.js installed?", e);
    }
  }

  public Cli cli() {
    return cli;
  }

  /** Sends an op and waits for its answer; fails when the driver answers ok:false. */
  public JsonNode call(String op, Map<String, Object> args) {
    JsonNode answer = await(send(op, args), DEFAULT_TIMEOUT);
    if (!answer.path("ok").asBoolean()) {
      throw new AssertionError(cli + " " + op + " failed: " + answer.path("error").asString());
    }
    return answer;
  }

  public JsonNode call(String op) {
    return call(op, Map.of());
  }

  /** Sends an op without waiting; the future completes with the driver's whole answer line. */
  public CompletableFuture<JsonNode> send(String op, Map<String, Object> args) {
    int id = ids.incrementAndGet();
    ObjectNode command = JSON.createObjectNode();
    command.put("id", id);
    command.put("op", op);
    args.forEach((k, v) -> command.set(k, JSON.valueToTree(v)));
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    try {
      synchronized (stdin) {
        stdin.write((JSON.writeValueAsString(command) + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
      }
    } catch (IOException e) {
      answer.completeExceptionally(new AssertionError("driver is gone; its stderr:\n" + stderr, e));
    }
    return answer;
  }

  /** Connects and returns the status answer. */
  public JsonNode connect() {
    return call("connect");
  }

  /** The context as the CLI stores it (after its own normalisation). */
  public JsonNode context() {
    return call("context").path("context");
  }

  /** Waits until the CLI's stored context satisfies {@code condition}, and returns it. */
  public JsonNode awaitContext(Predicate<JsonNode> condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (JsonNode e : events) {
        if ("context".equals(e.path("event").asString(null)) && condition.test(e.path("context"))) {
          return e.path("context");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(cli + ": no context matched within " + timeout + "; last: " + lastContext());
      }
      synchronized (events) {
        try {
          events.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }

  /** The most recent context event, or a missing node. */
  public JsonNode lastContext() {
    for (int i = events.size() - 1; i >= 0; i--) {
      if ("context".equals(events.get(i).path("event").asString(null))) {
        return events.get(i).path("context");
      }
    }
    return JSON.missingNode();
  }

  /** Every event the driver reported so far, oldest first. */
  public List<JsonNode> events() {
    return List.copyOf(events);
  }

  /** What the driver wrote to stderr, for failure messages. */
  public String stderr() {
    return stderr.toString();
  }

  public static JsonNode await(CompletableFuture<JsonNode> future, Duration timeout) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + timeout, e);
    }
  }

  private void readStdout() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        JsonNode message = JSON.readTree(line);
        if (message.has("event")) {
          events.add(message);
          synchronized (events) {
            events.notifyAll();
          }
        } else if (message.path("id").isNumber()) {
          CompletableFuture<JsonNode> f = pending.remove(message.path("id").asInt());
          if (f != null) {
            f.complete(message);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // The driver ended; pending calls fail below.
    }
    pending.values().forEach(f -> f.completeExceptionally(new AssertionError(cli + " driver exited; stderr:\n" + stderr)));
  }

  private void readStderr() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (stderr.length() < 200_000) {
          stderr.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      // Ended with the process.
    }
  }

  /** Kills the CLI without a goodbye, as a crash or a closed terminal would. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    send("exit", Map.of());
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
