package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.RawMcp;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.JsonNode;

/**
 * A frozen CLI stalls nobody: clients that stop reading (a notification stream, editor event
 * streams) or never speak (idle connections) leave a real CLI's context updates and diff outcomes
 * flowing, the editor API answering, and the companion's thread count flat.
 */
// Its tests mostly wait on the companion's own bounds; each has its own companion and folder.
@Execution(ExecutionMode.CONCURRENT)
class FrozenClientIT {
  /** Only bounds a hang; nothing here measures speed. */
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Stall bound, sweep, ping interval and ping timeout together, with room to spare. */
  private static final Duration FROZEN_SESSION_CLOSED = Duration.ofSeconds(90);

  /**
   * Threads the JVM may add on its own (compiler, GC); fewer than the 20 frozen subscribers, so a
   * thread blocked per frozen reader shows.
   */
  private static final int THREAD_MARGIN = 16;

  /**
   * Under a flood of connections Jetty's pool grows toward its cap of 64 (about 20 more threads
   * seen); a thread per connection would add 200.
   */
  private static final int THREAD_MARGIN_CONNECTION_FLOOD = 40;

  private static final int SELECTION_CHARS = 16 * 1024;

  @TempDir Path temp;
  private CliEnvironment env;
  private CompanionProcess companion;
  private CliDriver qwen;
  private Path file;
  private final List<Socket> sockets = new ArrayList<>();
  private int pushes;

  @BeforeEach
  void startCompanionAndARealCli() {
    env = CliEnvironment.in(temp);
    file = env.file("src/Big.java", "class Big {}\n");
    companion = CompanionProcess.start(env);
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put(Cli.QWEN.portVariable(), Integer.toString(companion.port()));
    qwen = CliDriver.start(Cli.QWEN, env.workspace(), vars);
    assertThat(qwen.connect().path("status").asString()).as(qwen.stderr()).isEqualTo("connected");
    // Warm up every path the test uses, so the thread count read next is the steady one.
    pushSelectionAndAwaitIt();
    answerDiffs("warm-up");
  }

  @AfterEach
  void tearDown() throws Exception {
    synchronized (sockets) {
      for (Socket s : sockets) {
        s.close();
      }
    }
    if (qwen != null) {
      qwen.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  @Test
  void aCliThatStopsReadingItsNotificationStreamIsClosedAndDelaysNobody() {
    int threadsBefore = companion.threadCount();
    String frozen = RawMcp.initialize(companion, "frozen-client");
    assertThat(Review.clientIds(companion)).contains(frozen);
    sockets.add(RawMcp.frozenNotificationStream(companion, frozen));

    // 16 KiB selections, one after the other: each must reach the real CLI while the frozen
    // session's stream fills up, until the companion gives up on the frozen session.
    await("the frozen session leaves /editor/state")
        .atMost(FROZEN_SESSION_CLOSED)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              pushSelectionAndAwaitIt();
              return !Review.clientIds(companion).contains(frozen);
            });
    System.out.println("selections pushed while the frozen session lived: " + pushes);
    companion
        .stderr()
        .lines()
        .filter(l -> l.contains("frozen-client"))
        .forEach(System.out::println);
    assertThat(pushes).as("selections pushed while the frozen session lived").isGreaterThan(2);
    for (int i = 0; i < 3; i++) {
      pushSelectionAndAwaitIt();
    }
    answerDiffs("after the frozen session");
    assertThat(Review.clientIds(companion)).hasSize(1);
    assertThreadsBounded(threadsBefore, THREAD_MARGIN);
  }

  @Test
  void twoHundredIdleConnectionsDelayNobody() throws Exception {
    int threadsBefore = companion.threadCount();
    // Opened while selections flow. Beyond the companion's connection cap and its accept backlog
    // a connect waits until the companion drops idle connections, hence the long connect timeout.
    CompletableFuture<Void> opened =
        CompletableFuture.runAsync(
            () -> {
              for (int i = 0; i < 200; i++) {
                Socket s = new Socket();
                synchronized (sockets) {
                  sockets.add(s);
                }
                try {
                  s.connect(new InetSocketAddress("127.0.0.1", companion.port()), 60_000);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException("idle connection " + i, e);
                }
              }
            });
    do {
      pushSelectionAndAwaitIt();
    } while (!opened.isDone());
    opened.join();
    for (int i = 0; i < 5; i++) {
      pushSelectionAndAwaitIt();
    }
    // Requests may wait in the backlog until idle connections are dropped; they must get through.
    await("the editor API answers")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> companion.get("/editor/state").statusCode() == 200);
    answerDiffs("beside idle connections");
    assertThreadsBounded(threadsBefore, THREAD_MARGIN_CONNECTION_FLOOD);

    // And the idle connections do not stay: each is ended by the companion.
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    for (Socket s : sockets) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
      assertThat(endedByPeer(s))
          .as("idle connection %s ended by the companion", s.getLocalPort())
          .isTrue();
    }
  }

  @Test
  void twentyEventStreamSubscribersThatNeverReadDelayNobody() {
    int threadsBefore = companion.threadCount();
    for (int i = 0; i < 20; i++) {
      sockets.add(RawMcp.frozenGet(companion, "/editor/events/stream"));
    }

    // Every selection is published to each frozen subscriber too: 160 of 16 KiB are more than
    // the kernel buffers of a connection that is not read (about 1.7 MB on Linux loopback) hold.
    for (int i = 0; i < 160; i++) {
      String marker = pushSelectionAndAwaitIt();
      HttpResponse<String> state = companion.get("/editor/state");
      assertThat(state.statusCode()).isEqualTo(200);
      assertThat(state.body()).contains(marker);
    }
    answerDiffs("beside frozen event streams");
    assertThreadsBounded(threadsBefore, THREAD_MARGIN);
  }

  /** Pushes a fresh 16 KiB selection and waits until the real CLI holds it; returns its marker. */
  private String pushSelectionAndAwaitIt() {
    int n = pushes++;
    String marker = "push " + n + " ";
    String text =
        marker + String.valueOf(n % 2 == 0 ? 'a' : 'b').repeat(SELECTION_CHARS - marker.length());
    Map<String, Object> event = Map.of("type", "selection", "path", file.toString(), "text", text);
    // Patient: with the connection cap reached, a new request waits until idle ones are dropped.
    await("selection " + n + " taken")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> companion.post("/editor/events", event).statusCode(), status -> status == 204);
    qwen.awaitContext(
        c ->
            text.equals(
                c.path("workspaceState")
                    .path("openFiles")
                    .path(0)
                    .path("selectedText")
                    .asString(null)),
        WAIT);
    return marker;
  }

  /**
   * The real CLI proposes two edits; one is accepted and one rejected by id; both outcomes arrive.
   */
  private void answerDiffs(String label) {
    String proposed = "class Big { /* " + label + " */ }\n";
    CompletableFuture<JsonNode> first =
        qwen.send("openDiff", Map.of("filePath", file.toString(), "newContent", proposed));
    JsonNode diff = Review.awaitPendingDiff(companion, file, proposed, Duration.ofSeconds(60));
    String edited = "class Big { /* " + label + ", edited */ }\n";
    assertThat(Review.accept(companion, diff.path("id").asString(), edited).statusCode())
        .isEqualTo(204);
    JsonNode accepted = CliDriver.await(first, WAIT);
    assertThat(accepted.path("status").asString()).as(accepted.toString()).isEqualTo("accepted");
    assertThat(accepted.path("content").asString()).isEqualTo(edited);

    String second = "class Big { /* " + label + ", rejected */ }\n";
    CompletableFuture<JsonNode> rejected =
        qwen.send("openDiff", Map.of("filePath", file.toString(), "newContent", second));
    JsonNode diff2 = Review.awaitPendingDiff(companion, file, second, Duration.ofSeconds(60));
    assertThat(diff2.path("id").asString()).isNotEqualTo(diff.path("id").asString());
    assertThat(Review.reject(companion, diff2.path("id").asString()).statusCode()).isEqualTo(204);
    assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");
  }

  private void assertThreadsBounded(int before, int margin) {
    int after = companion.threadCount();
    System.out.printf("companion threads: %d before, %d after%n", before, after);
    assertThat(after)
        .as("companion threads before %d, after %d", before, after)
        .isLessThanOrEqualTo(before + margin);
  }

  /**
   * Reads until the companion ends the connection (EOF or reset) or the socket's timeout passes.
   */
  private static boolean endedByPeer(Socket s) throws IOException {
    try {
      byte[] buffer = new byte[4096];
      while (s.getInputStream().read(buffer) >= 0) {
        // An error answer, say; the end follows.
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true;
    }
  }
}
