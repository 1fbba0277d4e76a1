package dev.companion4j.acp.bench;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonIdeConnection;
import dev.companion4j.daemon.conversation.Entry;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import dev.companion4j.testkit.QwenDaemon;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Time to the first streamed token and the agent's start, on the chat's two paths, with the real
 * agents from the test peers against the fake model, each in a home of its own with default
 * settings:
 *
 * <ul>
 *   <li>{@code qwen --acp} and {@code gemini --acp} through {@link AcpIdeConnection}: the agent's
 *       own start (its process spawned to its {@code initialize} answer, and {@code session/new}
 *       answered, on a bare JSON-RPC pipe with no client library), then the chat's {@link
 *       AcpIdeConnection#open} (spawn to a session that takes prompts);
 *   <li>{@code qwen serve} through {@link DaemonIdeConnection}: the daemon's start (spawned to
 *       listening), then a session created and followed.
 * </ul>
 *
 * Then prompts: from the prompt sent to the first answer text in the conversation a front end is
 * handed (the connection's listener), the first prompt of each session apart. The paths take turns,
 * each start after one that is not counted. Prints a Markdown table for docs/performance.md.
 */
public final class FirstTokenBenchmark {
  private static final int STARTS = 5;
  private static final int PROMPTS = 11;
  private static final long LIMIT_SECONDS = 90;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Map<String, List<Double>> samples = new LinkedHashMap<>();
  private boolean counting;

  private FirstTokenBenchmark() {}

  public static void main(String[] args) throws Exception {
    int starts = args.length > 0 ? Integer.parseInt(args[0]) : STARTS;
    FirstTokenBenchmark bench = new FirstTokenBenchmark();
    Path root = Files.createTempDirectory("companion4j-first-token-");
    try (FakeModelServer model = new FakeModelServer()) {
      HeadlessCli qwen = new HeadlessCli(Kind.QWEN, CliEnvironment.in(root.resolve("qwen")), model);
      HeadlessCli gemini =
          new HeadlessCli(Kind.GEMINI, CliEnvironment.in(root.resolve("gemini")), model);
      // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
      gemini.trustTheWorkspace();
      // Alternating, so that no path gets a quieter machine; the first round is not counted: it
      // reads the agents' files from disk, which a user's start seldom does.
      for (int i = 0; i <= starts; i++) {
        bench.counting = i > 0;
        bench.acp("qwen --acp", qwen);
        bench.acp("gemini --acp", gemini);
        bench.daemon(model);
      }
    } finally {
      try (Stream<Path> files = Files.walk(root)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
    bench.print(starts);
    System.exit(0);
  }

  private void acp(String name, HeadlessCli cli) throws Exception {
    Path workspace = cli.env.workspace();
    List<String> command = List.of("node", cli.kind.executable().toString(), "--acp");
    bareStart(name, command, workspace, cli.variables());

    FirstText first = new FirstText();
    long start = System.nanoTime();
    try (AcpIdeConnection c =
        AcpIdeConnection.open(
            new AcpAgent(command, workspace, cli.variables()),
            AcpIdeConnection.Setup.in(workspace),
            first::changed)) {
      add(name, "start to a session that takes prompts (AcpIdeConnection.open)", since(start));
      prompts(
          name,
          first,
          c::conversation,
          text -> c.prompt(text).orTimeout(LIMIT_SECONDS, TimeUnit.SECONDS).join());
    }
  }

  private void daemon(FakeModelServer model) throws Exception {
    String name = "qwen serve";
    long start = System.nanoTime();
    try (QwenDaemon daemon = QwenDaemon.start(model)) {
      add(name, "the daemon's start: spawned to listening", since(start));
      FirstText first = new FirstText();
      long opening = System.nanoTime();
      try (DaemonClient client = DaemonClient.connect(daemon.url());
          DaemonIdeConnection c =
              DaemonIdeConnection.open(
                  client,
                  SessionOptions.forWorkspace(daemon.workspace().toString()),
                  first::changed)) {
        add(name, "a session created and followed (DaemonIdeConnection.open)", since(opening));
        add(name, "start to a session that takes prompts", since(start));
        prompts(
            name,
            first,
            c::conversation,
            text -> {
              c.prompt(text);
              awaitTurnEnd(first, c::conversation);
            });
      }
    }
  }

  /** The prompts of one session: the first apart, the others together. */
  private void prompts(
      String name, FirstText first, Supplier<Conversation> now, Consumer<String> turn)
      throws Exception {
    for (int i = 0; i < PROMPTS; i++) {
      first.arm(now.get().entries().size());
      long start = System.nanoTime();
      turn.accept("say hello");
      long shown = first.shown.get(LIMIT_SECONDS, TimeUnit.SECONDS);
      add(
          name,
          i == 0 ? "first token, first prompt of a session" : "first token, later prompts",
          (shown - start) / 1e6);
    }
  }

  /**
   * The daemon's prompt returns once sent: the turn has begun when its answer shows, and ends when
   * the conversation says so.
   */
  private static void awaitTurnEnd(FirstText first, Supplier<Conversation> now) {
    first.shown.orTimeout(LIMIT_SECONDS, TimeUnit.SECONDS).join();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
    while (System.nanoTime() < deadline) {
      if (!now.get().turnRunning()) {
        return;
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("the turn did not end in " + LIMIT_SECONDS + " s");
  }

  /**
   * The agent alone: spawned to its {@code initialize} answer, then its {@code session/new} answer,
   * on a bare pipe, the requests written at once.
   */
  private void bareStart(String name, List<String> command, Path cwd, Map<String, String> env)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(cwd.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().putAll(env);
    long start = System.nanoTime();
    Process agent = builder.start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
      OutputStream in = agent.getOutputStream();
      send(
          in,
          1,
          "initialize",
          Map.of(
              "protocolVersion",
              1,
              "clientCapabilities",
              Map.of("fs", Map.of("readTextFile", false, "writeTextFile", false))));
      answer(out, 1);
      long initialized = System.nanoTime();
      add(name, "the agent's own start: spawned to initialize answered", since(start));
      send(in, 2, "session/new", Map.of("cwd", cwd.toString(), "mcpServers", List.of()));
      answer(out, 2);
      add(name, "the agent's session/new answered", since(initialized));
    } finally {
      agent.descendants().forEach(ProcessHandle::destroy);
      agent.destroy();
      agent.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void send(OutputStream in, int id, String method, Object params)
      throws IOException {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("jsonrpc", "2.0");
    request.put("id", id);
    request.put("method", method);
    request.put("params", params);
    in.write((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Reads lines until the answer to {@code id}; an error answer fails the run. */
  private static void answer(BufferedReader out, int id) throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (!line.startsWith("{")) {
        continue;
      }
      JsonNode message = JSON.readTree(line);
      if (message.path("id").asInt(-1) == id && !message.has("method")) {
        if (message.has("error")) {
          throw new IllegalStateException("the agent refused request " + id + ": " + message);
        }
        return;
      }
    }
    throw new IllegalStateException("the agent ended before answering request " + id);
  }

  private void add(String path, String measure, double millis) {
    if (!counting) {
      return;
    }
    samples.computeIfAbsent(path + "\t" + measure, k -> new ArrayList<>()).add(millis);
  }

  private static double since(long start) {
    return (System.nanoTime() - start) / 1e6;
  }

  private void print(int starts) {
    System.out.println("| path | measure | median (ms) | min – max (ms) | samples |");
    System.out.println("|---|---|---|---|---|");
    samples.forEach(
        (key, values) -> {
          List<Double> sorted = values.stream().sorted().toList();
          String[] parts = key.split("\t");
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %.1f | %.1f – %.1f | %d |%n",
              parts[0],
              parts[1],
              sorted.get(sorted.size() / 2),
              sorted.get(0),
              sorted.get(sorted.size() - 1),
              sorted.size());
        });
    System.out.printf(
        Locale.ROOT,
        "%n%d starts per path after one not counted, %d prompts per session; %d CPUs, load"
            + " average %s; %s %s%n",
        starts,
        PROMPTS,
        Runtime.getRuntime().availableProcessors(),
        loadAverage(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"));
  }

  private static String loadAverage() {
    try {
      return String.join(
          " ", List.of(Files.readString(Path.of("/proc/loadavg")).split(" ")).subList(0, 3));
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** When the answer's first text reached the listener, after the prompt armed it. */
  private static final class FirstText {
    private volatile CompletableFuture<Long> shown = new CompletableFuture<>();
    private volatile int from = Integer.MAX_VALUE;

    void arm(int entries) {
      shown = new CompletableFuture<>();
      from = entries;
    }

    void changed(Conversation c) {
      List<Entry> entries = c.entries();
      for (int i = from; i < entries.size(); i++) {
        if (entries.get(i) instanceof Entry.AssistantMessage m && !m.text().isEmpty()) {
          shown.complete(System.nanoTime());
          return;
        }
      }
    }
  }
}
