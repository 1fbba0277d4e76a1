package dev.companion4j.cli.bench;

import static dev.companion4j.cli.bench.BenchSupport.delete;
import static dev.companion4j.cli.bench.BenchSupport.millis;
import static dev.companion4j.cli.bench.BenchSupport.percentile;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;

/**
 * Measures context delivery to 20 connected CLIs when one of them is frozen, beside the same figure
 * when none is (docs/performance.md, "Context delivery with a frozen CLI").
 *
 * <p>An in-process engine and 20 minimal wire clients ({@link WireClient}) on loopback. Every 100
 * ms the program feeds a 16,000-character selection whose first characters carry a sequence number,
 * and records when the matching {@code ide/contextUpdate} reaches each reading client. Run A: all
 * 20 read. Run B: one of the 20 opened its notification stream on a socket with a 1 KiB receive
 * buffer and never reads; the run goes on until the companion has closed that client, then 100
 * events more. Run it with {@code scripts/benchmark.sh frozen}; it prints a Markdown table.
 */
public final class FrozenClientBenchmark {
  private static final int CLIS = 20;
  private static final int WARMUP = 30;
  private static final int SAMPLES = 300;
  private static final int AFTER_CLOSE = 100;
  private static final int SELECTION_CHARS = 16_000;
  private static final int FROZEN_RECEIVE_BUFFER = 1024;
  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration DEBOUNCE = Duration.ofMillis(50);

  /**
   * How long the companion's stall bound is; the last this-long before the close was certainly
   * stalled.
   */
  private static final Duration STALL_BOUND = Duration.ofSeconds(10);

  private static final Duration GIVE_UP = Duration.ofMinutes(3);
  private static final String MARK = "\"selectedText\":\"#";

  public static void main(String[] args) throws Exception {
    ClosureLog closures = ClosureLog.install();
    Path scratch = Files.createTempDirectory("companion4j-frozen-bench");
    List<String> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try {
      Run a = run(scratch.resolve("a"), false, closures);
      rows.add(a.row("A: none frozen, 20 reading", a.after(0)));
      notes.add(
          "A: "
              + a.events
              + " events, "
              + a.healthyLeft
              + " of "
              + a.healthy
              + " reading clients connected at the end.");

      Run b = run(scratch.resolve("b"), true, closures);
      if (b.closedNanos == 0) {
        rows.add(b.row("B: one frozen, 19 reading (never closed)", b.after(0)));
        notes.add("B: the frozen client was not closed within " + GIVE_UP.toSeconds() + " s.");
      } else {
        long close = b.closedNanos;
        rows.add(b.row("B: one frozen, 19 reading, while it was connected", t -> t < close));
        rows.add(
            b.row(
                "B: the same, its last " + STALL_BOUND.toSeconds() + " s (its write stalled)",
                t -> t < close && t >= close - STALL_BOUND.toNanos()));
        rows.add(b.row("B: after the companion closed it", t -> t >= close));
        notes.add(
            String.format(
                "B: the frozen client was closed %.1f s after its stream opened (%d events of %d characters"
                    + " fed by then)%s.",
                (close - b.frozenOpenedNanos) / 1e9,
                b.eventsBeforeClose(),
                SELECTION_CHARS,
                closures.onlyReason().map(r -> ", reason " + r).orElse("")));
      }
      notes.add(
          "B: " + b.healthyLeft + " of " + b.healthy + " reading clients connected at the end.");
    } finally {
      delete(scratch);
    }
    System.out.println(
        "| run | deliveries | p50 | p95 | p99 | max | events no reading client got | deliveries missed besides |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    rows.forEach(System.out::println);
    System.out.println();
    System.out.println(
        "Latency from `Companion.editorEvent` to the matching `ide/contextUpdate` arriving at a reading client,"
            + " beyond the "
            + DEBOUNCE.toMillis()
            + " ms debounce; one event every "
            + INTERVAL.toMillis()
            + " ms, the first "
            + WARMUP
            + " not counted.");
    notes.forEach(System.out::println);
    System.exit(0);
  }

  private static Run run(Path dir, boolean withFrozen, ClosureLog closures) throws Exception {
    Path workspace = Files.createDirectories(dir.resolve("ws"));
    Path file = Files.writeString(workspace.resolve("a.txt"), "a\n");
    Run run = new Run();
    Companion companion =
        Companion.builder(new BenchSupport.NullHost(workspace))
            .discoveryLocations(new DiscoveryLocations(dir.resolve("tmp"), dir.resolve("qwen")))
            .listener(
                new CompanionListener() {
                  @Override
                  public void clientDisconnected(ConnectedClient client) {
                    if (client.id().equals(run.frozenId) && run.closedNanos == 0) {
                      run.closedNanos = System.nanoTime();
                    }
                  }
                })
            .build();
    companion.start();
    List<WireClient> reading = new ArrayList<>();
    WireClient frozen = null;
    try {
      for (int i = 0; i < CLIS; i++) {
        WireClient client = new WireClient(companion.port(), companion.authToken());
        if (withFrozen && i == CLIS / 2) {
          frozen = client;
          run.frozenId = client.sessionId();
          run.frozenOpenedNanos = System.nanoTime();
          client.listenWithoutReading(FROZEN_RECEIVE_BUFFER);
        } else {
          reading.add(client);
          client.listen();
        }
      }
      for (WireClient client : reading) {
        if (client.pollNotification(Duration.ofSeconds(10)) == null) {
          throw new IllegalStateException("no first context update");
        }
      }
      if (companion.clients().size() != CLIS) {
        throw new IllegalStateException(
            "only " + companion.clients().size() + " clients connected");
      }
      run.healthy = reading.size();
      int capacity =
          (int) (GIVE_UP.toNanos() / INTERVAL.toNanos()) + WARMUP + SAMPLES + AFTER_CLOSE;
      run.fed = new long[capacity];
      run.arrived = new long[reading.size()][capacity];
      String filler = "x".repeat(SELECTION_CHARS - 8);
      long first = System.nanoTime();
      int closedAt = -1;
      for (int seq = 0; seq < capacity; seq++) {
        if (!withFrozen && seq == WARMUP + SAMPLES) {
          break;
        }
        if (withFrozen) {
          if (closedAt < 0 && run.closedNanos != 0) {
            closedAt = seq;
          }
          if (closedAt >= 0
              ? seq >= Math.max(closedAt + AFTER_CLOSE, WARMUP + SAMPLES)
              : System.nanoTime() - first > GIVE_UP.toNanos()) {
            break;
          }
        }
        // Each event at least the interval after the one before, so that no two share a debounce.
        long tick = seq == 0 ? first : run.fed[seq - 1] + INTERVAL.toNanos();
        while (System.nanoTime() < tick) {
          LockSupport.parkNanos(tick - System.nanoTime());
        }
        run.fed[seq] = System.nanoTime();
        companion.editorEvent(
            new EditorEvent.SelectionChanged(file, String.format("#%06d ", seq) + filler));
        run.events = seq + 1;
        drain(reading, run, Duration.ZERO);
      }
      LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
      drain(reading, run, Duration.ZERO);
      for (ConnectedClient c : companion.clients()) {
        if (!c.id().equals(run.frozenId)) {
          run.healthyLeft++;
        }
      }
    } finally {
      for (WireClient client : reading) {
        client.close();
      }
      if (frozen != null) {
        frozen.close();
      }
      companion.close();
    }
    return run;
  }

  private static void drain(List<WireClient> reading, Run run, Duration wait)
      throws InterruptedException {
    for (int c = 0; c < reading.size(); c++) {
      WireClient.Arrival a;
      while ((a = reading.get(c).pollNotification(wait)) != null) {
        int at = a.data().indexOf(MARK);
        if (at < 0) {
          continue;
        }
        int seq = Integer.parseInt(a.data(), at + MARK.length(), at + MARK.length() + 6, 10);
        if (run.arrived[c][seq] == 0) {
          run.arrived[c][seq] = a.nanoTime();
        }
      }
    }
  }

  /**
   * One run's raw times: when each event was fed and when it reached each reading client (0:
   * never).
   */
  private static final class Run {
    volatile String frozenId = "";
    volatile long closedNanos;
    long frozenOpenedNanos;
    int healthy;
    int healthyLeft;
    int events;
    long[] fed;
    long[][] arrived;

    LongPredicate after(long nanos) {
      return t -> t >= nanos;
    }

    int eventsBeforeClose() {
      int n = 0;
      for (int i = 0; i < events; i++) {
        if (fed[i] < closedNanos) {
          n++;
        }
      }
      return n;
    }

    /**
     * The delivery figures of the counted events fed at a time {@code phase} accepts, with the
     * events no reading client got (while the engine keeps up, those the debounce merged into the
     * next one) and the deliveries missing for events that other clients did get.
     */
    String row(String name, LongPredicate phase) {
      List<Long> latencies = new ArrayList<>();
      int merged = 0;
      int missed = 0;
      for (int seq = WARMUP; seq < events; seq++) {
        if (!phase.test(fed[seq])) {
          continue;
        }
        int got = 0;
        for (long[] client : arrived) {
          if (client[seq] != 0) {
            got++;
            latencies.add(client[seq] - fed[seq] - DEBOUNCE.toNanos());
          }
        }
        if (got == 0) {
          merged++;
        } else {
          missed += arrived.length - got;
        }
      }
      long[] l = latencies.stream().mapToLong(Long::longValue).toArray();
      String tail = " | " + merged + " | " + missed + " |";
      if (l.length == 0) {
        return "| " + name + " | 0 | | | | " + tail;
      }
      return "| "
          + name
          + " | "
          + l.length
          + " | "
          + millis(percentile(l, 50))
          + " | "
          + millis(percentile(l, 95))
          + " | "
          + millis(percentile(l, 99))
          + " | "
          + millis(percentile(l, 100))
          + tail;
    }
  }

  /**
   * Keeps the engine's "Closed the session of CLI ..." log lines, which name why a session ended.
   */
  private static final class ClosureLog extends OutputStream {
    private final PrintStream original;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final List<String> closures = new CopyOnWriteArrayList<>();

    private ClosureLog(PrintStream original) {
      this.original = original;
    }

    static ClosureLog install() {
      ClosureLog log = new ClosureLog(System.err);
      System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
      return log;
    }

    @Override
    public synchronized void write(int b) {
      original.write(b);
      if (b == '\n') {
        String text = line.toString(StandardCharsets.UTF_8);
        if (text.contains("Closed the session")) {
          closures.add(text);
        }
        line.reset();
      } else {
        line.write(b);
      }
    }

    @Override
    public void flush() {
      original.flush();
    }

    /**
     * The reason at the end of the closure line, when exactly one session was closed (the line
     * names no session id).
     */
    Optional<String> onlyReason() {
      return closures.size() == 1
          ? Optional.of(
              "\"" + closures.get(0).substring(closures.get(0).lastIndexOf(": ") + 2).trim() + "\"")
          : Optional.empty();
    }
  }
}
