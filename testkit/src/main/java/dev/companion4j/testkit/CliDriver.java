package dev.companion4j.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real CLI's own {@code IdeClient} (Qwen Code or Gemini CLI, from the pinned npm packages),
 * driven from Java through {@code test-peers/ide-client-driver.mjs}: the exact code users run.
 */
public final class CliDriver implements AutoCloseable {
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
  private final JsonLinePeer peer;

  private CliDriver(Cli cli, JsonLinePeer peer) {
    this.cli = cli;
    this.peer = peer;
  }

  /**
   * How the driver is started.
   *
   * @param prefix the command that runs {@code node}, e.g. {@code ip netns exec <name>}; empty for
   *     none
   * @param packages the directory whose {@code node_modules} holds the CLI package: the pinned one
   *     in {@code test-peers}, or one version's install
   */
  public record Launch(List<String> prefix, Path packages) {
    public Launch {
      prefix = List.copyOf(prefix);
    }

    /** The pinned CLIs, started directly. */
    public static Launch pinned() {
      return new Launch(List.of(), TestPeers.dir());
    }

    /** The same packages, started through {@code command}. */
    public Launch through(List<String> command) {
      return new Launch(command, packages);
    }
  }

  /**
   * Starts a pinned CLI's IdeClient in {@code cwd} with exactly {@code env} (nothing inherited).
   */
  public static CliDriver start(Cli cli, Path cwd, Map<String, String> env) {
    return start(cli, cwd, env, Launch.pinned());
  }

  /** Starts a CLI's IdeClient as {@code launch} says, in {@code cwd} with exactly {@code env}. */
  public static CliDriver start(Cli cli, Path cwd, Map<String, String> env, Launch launch) {
    List<String> command = new ArrayList<>(launch.prefix());
    command.addAll(
        List.of(
            "node",
            TestPeers.ideClientDriver().toString(),
            "--cli",
            cli.flag,
            "--packages",
            launch.packages().toString()));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.directory(cwd.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    return new CliDriver(cli, JsonLinePeer.start("cli-driver-" + cli.flag, pb));
  }

  public Cli cli() {
    return cli;
  }

  /** Sends an op and waits for its answer; fails when the driver answers ok:false. */
  public JsonNode call(String op, Map<String, Object> args) {
    return peer.call(op, args, DEFAULT_TIMEOUT);
  }

  public JsonNode call(String op) {
    return call(op, Map.of());
  }

  /** Sends an op without waiting; the future completes with the driver's whole answer line. */
  public CompletableFuture<JsonNode> send(String op, Map<String, Object> args) {
    return peer.send(op, args);
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
      for (JsonNode e : peer.events()) {
        if ("context".equals(e.path("event").asString(null)) && condition.test(e.path("context"))) {
          return e.path("context");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            cli + ": no context matched within " + timeout + "; last: " + lastContext());
      }
      try {
        peer.awaitEvent(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** The most recent context event, or a missing node. */
  public JsonNode lastContext() {
    List<JsonNode> events = peer.events();
    for (int i = events.size() - 1; i >= 0; i--) {
      if ("context".equals(events.get(i).path("event").asString(null))) {
        return events.get(i).path("context");
      }
    }
    return JsonMapper.shared().missingNode();
  }

  /** Every event the driver reported so far, oldest first. */
  public List<JsonNode> events() {
    return peer.events();
  }

  /** What the driver wrote to stderr, for failure messages. */
  public String stderr() {
    return peer.stderr();
  }

  /** Waits for an answer sent with {@link #send}. */
  public static JsonNode await(CompletableFuture<JsonNode> future, Duration timeout) {
    return JsonLinePeer.await(future, timeout);
  }

  /** Kills the CLI without a goodbye, as a crash or a closed terminal would. */
  public void kill() {
    peer.kill();
  }

  @Override
  public void close() {
    peer.send("exit", Map.of());
    peer.close();
  }
}
