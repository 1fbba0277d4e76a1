package dev.companion4j.daemon.bench;

import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.DaemonSession;
import dev.companion4j.daemon.PromptTurn;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.TurnResult;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * This client against the official TypeScript client ({@code @qwen-code/sdk}'s daemon client,
 * pinned in the test peers) on one real {@code qwen serve} with the scripted fake model, side by
 * side in one run. The TypeScript side is {@code test-peers/daemon-bench/bench.mjs}; both time the
 * same things in-process, and the runs alternate so neither gets a quieter machine.
 *
 * <ul>
 *   <li>time to first chunk: prompt sent to the first answer text received (a short answer);
 *   <li>live throughput: answer chunks per second while the daemon streams a long answer;
 *   <li>replay throughput: frames per second while the daemon replays a session's history ({@code
 *       Last-Event-ID: 0}), where the client is the bottleneck.
 * </ul>
 *
 * Prints a Markdown table for docs/performance.md.
 */
public final class DaemonBenchmark {
  private static final int ROUNDS = 5;
  private static final int PROMPTS = 21;
  private static final int LIVE_CHUNKS = 2_000;
  private static final int REPLAY_CHUNKS = 20_000;
  private static final int REPLAYS = 4;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final DaemonClient client;
  private final String url;
  private final String workspace;
  private final Path script;

  private DaemonBenchmark(DaemonClient client, String url, String workspace, Path script) {
    this.client = client;
    this.url = url;
    this.workspace = workspace;
    this.script = script;
  }

  public static void main(String[] args) throws Exception {
    Path script = TestPeers.dir().resolve("daemon-bench/bench.mjs");
    try (FakeModelServer model = new FakeModelServer();
        QwenDaemon daemon = QwenDaemon.start(model, null, List.of("--event-ring-size", "50000"));
        DaemonClient client = DaemonClient.connect(daemon.url())) {
      new DaemonBenchmark(client, daemon.url(), daemon.workspace().toString(), script).run();
    }
    System.exit(0);
  }

  private void run() throws Exception {
    DaemonSession corpus = corpus();
    double javaColdReplay = javaReplay()[0];
    javaTtfc(5);
    node("ttfc", 5);
    javaLive();

    List<Double> javaTtfc = new ArrayList<>();
    List<Double> nodeTtfc = new ArrayList<>();
    List<Double> javaLive = new ArrayList<>();
    List<Double> nodeLive = new ArrayList<>();
    List<Double> javaReplay = new ArrayList<>();
    List<Double> nodeReplay = new ArrayList<>();
    List<Double> nodeColdReplay = new ArrayList<>();
    long replayFrames = 0;
    for (int round = 0; round < ROUNDS; round++) {
      boolean javaFirst = round % 2 == 0;
      for (int side = 0; side < 2; side++) {
        if ((side == 0) == javaFirst) {
          javaTtfc.addAll(javaTtfc(PROMPTS).subList(1, PROMPTS));
          javaLive.add(javaLive());
          for (int i = 0; i < REPLAYS; i++) {
            double[] replay = javaReplay();
            if (i > 0) {
              javaReplay.add(replay[0]);
            }
            replayFrames = (long) replay[1];
          }
        } else {
          List<Double> samples = new ArrayList<>();
          node("ttfc", PROMPTS).path("ttfcMs").forEach(n -> samples.add(n.asDouble()));
          nodeTtfc.addAll(samples.subList(1, PROMPTS));
          JsonNode live = node("live", LIVE_CHUNKS);
          nodeLive.add(live.path("chunks").asDouble() / (live.path("ms").asDouble() / 1000));
          JsonNode runs = node("replay", REPLAYS).path("runs");
          for (int i = 0; i < runs.size(); i++) {
            double rate =
                runs.get(i).path("frames").asDouble() / (runs.get(i).path("ms").asDouble() / 1000);
            (i == 0 ? nodeColdReplay : nodeReplay).add(rate);
          }
        }
      }
    }
    corpus.close();

    System.out.println("| measure | Java client | TypeScript SDK client | Java / TypeScript |");
    System.out.println("|---|---|---|---|");
    row(
        "time to first chunk, median (ms, lower is better)",
        median(javaTtfc),
        median(nodeTtfc),
        "%.1f");
    row(
        "time to first chunk, p90 (ms, lower is better)",
        percentile(javaTtfc, 90),
        percentile(nodeTtfc, 90),
        "%.1f");
    row(
        "live stream, " + LIVE_CHUNKS + "-chunk answer (chunks/s, median of " + ROUNDS + ")",
        median(javaLive),
        median(nodeLive),
        "%.0f");
    row(
        "history replay, "
            + replayFrames
            + " frames, warm (frames/s, median of "
            + javaReplay.size()
            + ")",
        median(javaReplay),
        median(nodeReplay),
        "%.0f");
    row(
        "history replay, first in a fresh process (frames/s; Java: 1 run, TypeScript: median of "
            + ROUNDS
            + ")",
        javaColdReplay,
        median(nodeColdReplay),
        "%.0f");
    System.out.println();
    System.out.println(
        "Time to first chunk: "
            + javaTtfc.size()
            + " prompts per client ("
            + ROUNDS
            + " runs of "
            + PROMPTS
            + ", the first of each run not counted). Replay: "
            + REPLAYS
            + " in a row per run, the first not"
            + " counted as warm. Java "
            + System.getProperty("java.version")
            + ", Node "
            + nodeVersion()
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " CPUs.");
  }

  private static void row(String measure, double java, double node, String format) {
    System.out.println(
        String.format(
            Locale.ROOT,
            "| %s | " + format + " | " + format + " | %.2f |",
            measure,
            java,
            node,
            java / node));
  }

  /** The shared session whose history the replay reads: one long answer. */
  private DaemonSession corpus() {
    DaemonSession session = client.createOrAttach(SessionOptions.forWorkspace(workspace));
    session.subscribe(
        new DaemonListener() {
          @Override
          public void onUnsupported(DaemonEvent event) {}
        });
    TurnResult result = session.prompt("[[count " + REPLAY_CHUNKS + "]]").result().join();
    if (result.outcome() != TurnResult.Outcome.COMPLETED) {
      throw new IllegalStateException("the replay corpus did not complete: " + result);
    }
    return session;
  }

  private DaemonSession newSession(DaemonListener listener) {
    DaemonSession session =
        client.createOrAttach(SessionOptions.forWorkspace(workspace).asNewThread());
    session.subscribe(listener, 0);
    return session;
  }

  private List<Double> javaTtfc(int prompts) {
    Map<String, Long> firstText = new ConcurrentHashMap<>();
    List<Double> samples = new ArrayList<>();
    try (DaemonSession session =
        newSession(
            new DaemonListener() {
              @Override
              public void onEvent(DaemonEvent event) {
                if (event instanceof AgentMessageChunk chunk
                    && !chunk.text().isEmpty()
                    && chunk.meta().promptId() != null) {
                  firstText.putIfAbsent(chunk.meta().promptId(), System.nanoTime());
                }
              }
            })) {
      for (int i = 0; i < prompts; i++) {
        long start = System.nanoTime();
        PromptTurn turn = session.prompt("say hello");
        turn.result().join();
        samples.add((firstText.get(turn.promptId()) - start) / 1e6);
      }
    }
    return samples;
  }

  /** Chunks per second; the session is new and runs this one prompt. */
  private double javaLive() {
    long[] firstAndLast = new long[2];
    int[] chunks = {0};
    try (DaemonSession session =
        newSession(
            new DaemonListener() {
              @Override
              public void onEvent(DaemonEvent event) {
                if (event instanceof AgentMessageChunk chunk && !chunk.text().isEmpty()) {
                  if (chunks[0]++ == 0) {
                    firstAndLast[0] = System.nanoTime();
                  }
                } else if (event instanceof TurnComplete || event instanceof TurnError) {
                  firstAndLast[1] = System.nanoTime();
                }
              }
            })) {
      session.prompt("[[count " + LIVE_CHUNKS + "]]").result().join();
    }
    return chunks[0] / ((firstAndLast[1] - firstAndLast[0]) / 1e9);
  }

  /** Frames per second and the number of frames. */
  private double[] javaReplay() throws InterruptedException {
    CountDownLatch complete = new CountDownLatch(1);
    int[] frames = {0};
    DaemonSession session = client.createOrAttach(SessionOptions.forWorkspace(workspace));
    long start = System.nanoTime();
    session.subscribe(
        new DaemonListener() {
          @Override
          public void onEvent(DaemonEvent event) {
            frames[0]++;
            if (event instanceof Unknown unknown && unknown.type().equals("replay_complete")) {
              complete.countDown();
            }
          }
        },
        0);
    if (!complete.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no replay_complete after " + frames[0] + " frames");
    }
    long elapsed = System.nanoTime() - start;
    session.close();
    return new double[] {frames[0] / (elapsed / 1e9), frames[0]};
  }

  private JsonNode node(String mode, int count) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("node", script.toString(), mode, url, workspace, Integer.toString(count))
            .directory(script.getParent().toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!process.waitFor(300, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("bench.mjs " + mode + " failed: " + out);
    }
    return JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));
  }

  private static String nodeVersion() throws IOException, InterruptedException {
    Process process = new ProcessBuilder("node", "--version").start();
    String version =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    process.waitFor();
    return version;
  }

  private static double median(List<Double> values) {
    return percentile(values, 50);
  }

  private static double percentile(List<Double> values, int p) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
