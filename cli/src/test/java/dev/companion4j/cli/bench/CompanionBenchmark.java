package dev.companion4j.cli.bench;

import static dev.companion4j.cli.bench.BenchSupport.delete;
import static dev.companion4j.cli.bench.BenchSupport.millis;
import static dev.companion4j.cli.bench.BenchSupport.percentile;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import dev.companion4j.testkit.TestPeers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures the figures in docs/performance.md: openDiff acknowledgement round trip and editor event
 * to {@code ide/contextUpdate} arrival (in-process engine, the official MCP Java SDK client on
 * loopback), cold start to discovery file written, and resident memory idle and with 20 real CLI
 * IdeClients connected (the shaded jar started as the launcher starts it). Run it with {@code
 * scripts/benchmark.sh}; it prints a Markdown table.
 */
public final class CompanionBenchmark {
  private static final int ACK_WARMUP = 500;
  private static final int ACK_SAMPLES = 3_000;
  private static final int CONTEXT_WARMUP = 30;
  private static final int CONTEXT_SAMPLES = 300;
  private static final int COLD_STARTS = 10;
  private static final int CLIS = 20;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    Path scratch = Files.createTempDirectory("companion4j-bench");
    List<String> rows = new ArrayList<>();
    try {
      engineLatencies(scratch.resolve("engine"), rows);
      Path archive = scratch.resolve("companion4j.jsa");
      run(
          javaCommand(
              List.of(
                  "-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"),
              launcherFlags(),
              jar(),
              "selftest"));
      List<String> withArchive = List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off");
      coldStart(scratch.resolve("cold"), withArchive, rows);
      memory(scratch.resolve("memory"), withArchive, rows);
    } finally {
      delete(scratch);
    }
    System.out.println("| measure | result |");
    System.out.println("|---|---|");
    rows.forEach(System.out::println);
    System.exit(0);
  }

  private static void engineLatencies(Path dir, List<String> rows) throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("ws"));
    Path file = Files.writeString(workspace.resolve("a.txt"), "a\n");
    Companion companion =
        Companion.builder(new BenchSupport.NullHost(workspace))
            .discoveryLocations(new DiscoveryLocations(dir.resolve("tmp"), dir.resolve("qwen")))
            .build();
    companion.start();
    try (McpTapClient client = new McpTapClient(companion.port(), companion.authToken(), "bench")) {
      Map<String, Object> args = Map.of("filePath", file.toString(), "newContent", "b\n");
      for (int i = 0; i < ACK_WARMUP; i++) {
        client.call("openDiff", args);
      }
      long[] ack = new long[ACK_SAMPLES];
      for (int i = 0; i < ACK_SAMPLES; i++) {
        long start = System.nanoTime();
        client.call("openDiff", args);
        ack[i] = System.nanoTime() - start;
      }
      rows.add(
          "| openDiff acknowledgement round trip, p50 / p99 ("
              + ACK_SAMPLES
              + " calls) | "
              + millis(percentile(ack, 50))
              + " / "
              + millis(percentile(ack, 99))
              + " |");

      await(() -> !client.received("ide/contextUpdate").isEmpty());
      long[] context = new long[CONTEXT_SAMPLES];
      for (int i = 0; i < CONTEXT_WARMUP + CONTEXT_SAMPLES; i++) {
        int before = client.received("ide/contextUpdate").size();
        long start = System.nanoTime();
        companion.editorEvent(new EditorEvent.CursorMoved(file, 1 + i % 50, 1 + i % 7));
        await(() -> client.received("ide/contextUpdate").size() > before);
        List<McpTapClient.Received> got = client.received("ide/contextUpdate");
        long beyondDebounce =
            got.get(got.size() - 1).nanoTime() - start - Duration.ofMillis(50).toNanos();
        if (i >= CONTEXT_WARMUP) {
          context[i - CONTEXT_WARMUP] = beyondDebounce;
        }
      }
      rows.add(
          "| editor event to `ide/contextUpdate` arrival beyond the 50 ms debounce, p50 / p99 ("
              + CONTEXT_SAMPLES
              + " events) | "
              + millis(percentile(context, 50))
              + " / "
              + millis(percentile(context, 99))
              + " |");
    }
    try (WireClient wire = new WireClient(companion.port(), companion.authToken())) {
      String args = "{\"filePath\":\"" + file + "\",\"newContent\":\"c\\n\"}";
      for (int i = 0; i < ACK_WARMUP; i++) {
        wire.callTool("openDiff", args);
      }
      long[] ack = new long[ACK_SAMPLES];
      for (int i = 0; i < ACK_SAMPLES; i++) {
        long start = System.nanoTime();
        wire.callTool("openDiff", args);
        ack[i] = System.nanoTime() - start;
      }
      rows.add(
          "| the same with a minimal HTTP/1.1 keep-alive MCP client (engine cost alone) | "
              + millis(percentile(ack, 50))
              + " / "
              + millis(percentile(ack, 99))
              + " |");

      wire.listen();
      wire.nextNotification();
      long[] context = new long[CONTEXT_SAMPLES];
      for (int i = 0; i < CONTEXT_WARMUP + CONTEXT_SAMPLES; i++) {
        long start = System.nanoTime();
        companion.editorEvent(new EditorEvent.CursorMoved(file, 1 + i % 50, 2 + i % 7));
        long arrived = wire.nextNotification().nanoTime();
        if (i >= CONTEXT_WARMUP) {
          context[i - CONTEXT_WARMUP] = arrived - start - Duration.ofMillis(50).toNanos();
        }
      }
      rows.add(
          "| the same with the minimal client's notification stream | "
              + millis(percentile(context, 50))
              + " / "
              + millis(percentile(context, 99))
              + " |");
    } finally {
      companion.close();
    }
  }

  private static void coldStart(Path dir, List<String> withArchive, List<String> rows)
      throws Exception {
    long[][] plain = new long[2][COLD_STARTS];
    long[][] shared = new long[2][COLD_STARTS];
    for (int i = 0; i < COLD_STARTS; i++) {
      record(
          plain,
          i,
          startUp(
              dir.resolve("plain" + i), javaCommand(List.of(), launcherFlags(), jar(), "serve")));
      record(
          shared,
          i,
          startUp(
              dir.resolve("cds" + i), javaCommand(withArchive, launcherFlags(), jar(), "serve")));
    }
    rows.add(
        "| cold start to discovery file written, median of "
            + COLD_STARTS
            + " (launcher flags and class-data archive) | "
            + millis(percentile(shared[0], 50))
            + " |");
    rows.add(
        "| cold start to first MCP `initialize` answered, same runs | "
            + millis(percentile(shared[1], 50))
            + " |");
    rows.add(
        "| both without the class-data archive | "
            + millis(percentile(plain[0], 50))
            + " / "
            + millis(percentile(plain[1], 50))
            + " |");
  }

  private static void record(long[][] into, int i, long[] sample) {
    into[0][i] = sample[0];
    into[1][i] = sample[1];
  }

  private static void memory(Path dir, List<String> withArchive, List<String> rows)
      throws Exception {
    CliEnvironment env = CliEnvironment.in(dir);
    ProcessBuilder pb =
        new ProcessBuilder(javaCommand(withArchive, launcherFlags(), jar(), "serve"))
            .directory(env.workspace().toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().putAll(env.variables());
    Process companion = pb.start();
    List<CliDriver> clis = new ArrayList<>();
    try {
      String ready =
          new BufferedReader(
                  new InputStreamReader(companion.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      if (ready == null) {
        throw new IllegalStateException("companion did not start");
      }
      Path file = env.file("a.txt", "a");
      warmUpAndSettle(companion);
      long idle = rssKib(companion.pid());
      for (int i = 0; i < CLIS; i++) {
        CliDriver cli =
            CliDriver.start(
                i % 2 == 0 ? CliDriver.Cli.QWEN : CliDriver.Cli.GEMINI,
                env.workspace(),
                env.variables());
        clis.add(cli);
        if (!cli.connect().path("status").asString().equals("connected")) {
          throw new IllegalStateException("CLI " + i + " did not connect: " + cli.stderr());
        }
      }
      HTTP.send(
          HttpRequest.newBuilder(URI.create(readyEditorApi(ready) + "/events"))
              .header("Authorization", "Bearer " + tokenOf(env))
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"type\":\"focus\",\"path\":\"" + file + "\"}"))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      for (CliDriver cli : clis) {
        cli.awaitContext(c -> c.toString().contains("a.txt"), Duration.ofSeconds(30));
      }
      long loaded = rssKib(companion.pid());
      rows.add("| resident memory (RSS), idle | " + loaded(idle) + " |");
      rows.add(
          "| resident memory (RSS), "
              + CLIS
              + " real CLI IdeClients connected (10 Qwen Code, 10 Gemini CLI) | "
              + loaded(loaded)
              + " |");
    } finally {
      clis.forEach(CliDriver::close);
      companion.destroy();
      companion.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void warmUpAndSettle(Process companion) throws Exception {
    // Let start-up garbage be collected, as it is a few seconds into a real session.
    new ProcessBuilder("jcmd", Long.toString(companion.pid()), "GC.run")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor(30, TimeUnit.SECONDS);
  }

  private static String tokenOf(CliEnvironment env) throws Exception {
    try (Stream<Path> locks = Files.list(env.qwenHome().resolve("ide"))) {
      Path lock = locks.findFirst().orElseThrow();
      return JsonMapper.shared().readTree(Files.readString(lock)).path("authToken").asString();
    }
  }

  private static String readyEditorApi(String ready) {
    return JsonMapper.shared().readTree(ready).path("editorApi").asString();
  }

  /** Starts a companion; returns the nanoseconds to its lock file and to its first MCP answer. */
  private static long[] startUp(Path dir, List<String> command) throws Exception {
    CliEnvironment env = CliEnvironment.in(dir);
    Path lockDir = env.qwenHome().resolve("ide");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(env.workspace().toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().putAll(env.variables());
    long start = System.nanoTime();
    Process p = pb.start();
    try {
      while (!hasLock(lockDir)) {
        if (!p.isAlive()) {
          throw new IllegalStateException("companion exited during cold start");
        }
        Thread.onSpinWait();
      }
      long toFile = System.nanoTime() - start;
      Path lock;
      try (Stream<Path> files = Files.list(lockDir)) {
        lock = files.filter(f -> f.toString().endsWith(".lock")).findFirst().orElseThrow();
      }
      JsonNode json = JsonMapper.shared().readTree(Files.readString(lock));
      HttpRequest initialize =
          HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + json.path("port").asInt() + "/mcp"))
              .header("Authorization", "Bearer " + json.path("authToken").asString())
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                          + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}"))
              .build();
      int status = HTTP.send(initialize, HttpResponse.BodyHandlers.discarding()).statusCode();
      if (status != 200) {
        throw new IllegalStateException("initialize answered " + status);
      }
      return new long[] {toFile, System.nanoTime() - start};
    } finally {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static Path jar() {
    return TestPeers.repoRoot().resolve("cli/target/companion4j.jar");
  }

  private static boolean hasLock(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".lock"));
    }
  }

  /** The flags the launcher uses, from the same file. */
  private static List<String> launcherFlags() throws Exception {
    return Files.readAllLines(TestPeers.repoRoot().resolve("cli/jvm.options")).stream()
        .map(String::trim)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  private static List<String> javaCommand(
      List<String> cds, List<String> flags, Path jar, String command) {
    List<String> c = new ArrayList<>();
    c.add(ProcessHandle.current().info().command().orElse("java"));
    c.addAll(cds);
    c.addAll(flags);
    c.add("-jar");
    c.add(jar.toString());
    c.add(command);
    return c;
  }

  private static void run(List<String> command) throws Exception {
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("failed: " + command);
    }
  }

  private static long rssKib(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  private static String loaded(long kib) {
    return String.format("%.0f MB", kib / 1024.0);
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out");
      }
      Thread.onSpinWait();
    }
  }
}
