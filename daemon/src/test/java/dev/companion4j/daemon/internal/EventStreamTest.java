package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.TurnResult;
import dev.companion4j.daemon.TurnResult.Outcome;
import dev.companion4j.daemon.testing.RecordingListener;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reconnect rules against a scripted event server: exact edge cases the real daemon cannot be
 * made to produce on demand (overlapping replays, a vanished daemon, a refused resume).
 */
class EventStreamTest {
  private static final Duration LIMIT = Duration.ofSeconds(20);
  private static final int MAX_BYTES = 1024 * 1024;

  /** What one connection answers. */
  interface Script {
    void play(HttpExchange exchange, OutputStream out) throws IOException;
  }

  private final List<String> lastEventIds = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private HttpServer server;
  private EventStream stream;
  private final TurnTracker turns = new TurnTracker();
  private final RecordingListener events = new RecordingListener();

  @AfterEach
  void stop() {
    if (stream != null) {
      stream.close();
    }
    if (server != null) {
      server.stop(0);
    }
    timer.shutdownNow();
  }

  private static String frame(long id, String text) {
    return "id: "
        + id
        + "\nevent: session_update\ndata: {\"id\":"
        + id
        + ",\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":"
        + "\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\""
        + text
        + "\"}}}}\n\n";
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private void serve(Script... scripts) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/session/s1/events",
        exchange -> {
          int n = connections.getAndIncrement();
          lastEventIds.add(String.valueOf(exchange.getRequestHeaders().getFirst("Last-Event-ID")));
          Script script = scripts[Math.min(n, scripts.length - 1)];
          try (OutputStream out = exchange.getResponseBody()) {
            script.play(exchange, out);
          } catch (IOException e) {
            // The client went away.
          }
        });
    server.start();
  }

  private static Script events(String... frames) {
    return (exchange, out) -> {
      exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
      exchange.getResponseHeaders().add("X-Qwen-Event-Epoch", "epoch-1");
      exchange.sendResponseHeaders(200, 0);
      for (String f : frames) {
        write(out, f);
      }
    };
  }

  /** Time that moves only when the stream waits or the test moves it. */
  static final class FakeClock implements EventStream.Clock {
    private final AtomicLong now = new AtomicLong();

    @Override
    public long nanoTime() {
      return now.get();
    }

    @Override
    public void await(Object monitor, long nanos) {
      now.addAndGet(nanos);
    }

    void advance(Duration by) {
      now.addAndGet(by.toNanos());
    }
  }

  private EventStream open(Duration budget, Duration heartbeat) {
    return open(Duration.ofSeconds(5), budget, heartbeat, EventStream.Clock.SYSTEM, events);
  }

  private EventStream open(
      Duration connect,
      Duration budget,
      Duration heartbeat,
      EventStream.Clock clock,
      DaemonListener listener) {
    DaemonHttp http =
        new DaemonHttp(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
            null,
            connect,
            Duration.ofSeconds(5),
            MAX_BYTES,
            timer);
    stream =
        new EventStream(
            http,
            "s1",
            "client-1",
            listener,
            turns,
            new EventStream.Settings(connect, budget, heartbeat, null, MAX_BYTES),
            timer,
            clock);
    stream.start(-1);
    return stream;
  }

  private List<Duration> reconnectDelays() {
    return events.statuses().stream()
        .filter(s -> s.state() == State.RECONNECTING)
        .map(ConnectionStatus::retryIn)
        .collect(Collectors.toList());
  }

  private static List<Duration> millis(long... values) {
    return LongStream.of(values).mapToObj(Duration::ofMillis).collect(Collectors.toList());
  }

  private List<String> texts() {
    return events.events(AgentMessageChunk.class).stream()
        .map(AgentMessageChunk::text)
        .collect(Collectors.toList());
  }

  @Test
  void resumesFromTheLastIdAndDropsWhatItAlreadyHad() throws IOException {
    String died =
        "id: 6\nevent: session_died\ndata: {\"id\":6,\"v\":1,\"type\":\"session_died\",\"data\":{\"sessionId\":\"s1\",\"reason\":\"channel_closed\"}}\n\n";
    serve(
        events("retry: 150\n\n", frame(1, "a"), frame(2, "b"), frame(3, "c")),
        events(
            frame(2, "b"), frame(3, "c"), frame(4, "d"), ": heartbeat\n\n", frame(5, "e"), died));

    open(Duration.ofSeconds(10), Duration.ofSeconds(10));
    SessionDied end = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(texts()).containsExactly("a", "b", "c", "d", "e");
    assertThat(lastEventIds).containsExactly("null", "3");
    assertThat(end.reportedByDaemon()).isTrue();
    assertThat(events.statuses())
        .extracting(ConnectionStatus::state)
        .containsExactly(State.CONNECTED, State.RECONNECTING, State.CONNECTED, State.LOST);
    assertThat(events.statuses().get(1).retryIn())
        .as("the server's retry: value")
        .isEqualTo(Duration.ofMillis(150));
    assertThat(stream.lastEventId()).isEqualTo(6);
  }

  @Test
  void givesUpWithItsOwnSessionDiedWhenTheDaemonIsGone() throws IOException {
    serve(events("retry: 100\n\n", frame(1, "a")));
    open(Duration.ofMillis(700), Duration.ofSeconds(10));
    await().atMost(LIMIT).until(() -> texts().contains("a"));
    var pending = turns.register("p-open");

    server.stop(0);

    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);
    assertThat(died.reportedByDaemon()).isFalse();
    assertThat(died.reason()).isEqualTo("daemon_unreachable");
    assertThat(pending.join().outcome())
        .isEqualTo(dev.companion4j.daemon.TurnResult.Outcome.SESSION_ENDED);
    assertThat(events.awaitStatus(State.LOST, LIMIT)).isNotNull();
    long reconnects =
        events.statuses().stream().filter(s -> s.state() == State.RECONNECTING).count();
    assertThat(reconnects)
        .as("delays 100, 200, 400 ms fit a 700 ms budget; 800 does not")
        .isBetween(1L, 3L);
  }

  @Test
  void givesUpWhenTheDaemonNoLongerKnowsTheSession() throws IOException {
    serve(
        events("retry: 100\n\n", frame(1, "a")),
        (exchange, out) -> {
          byte[] body =
              "{\"error\":\"No session\",\"code\":\"session_not_found\"}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(404, body.length);
          out.write(body);
        });
    open(Duration.ofSeconds(10), Duration.ofSeconds(10));

    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(died.reason()).isEqualTo("session_not_found");
    assertThat(died.reportedByDaemon()).isFalse();
    assertThat(events.awaitStatus(State.LOST, LIMIT).detail())
        .contains("404")
        .contains("No session");
  }

  @Test
  void failsTheSubscribeCallWhenTheFirstConnectionIsRefused() throws IOException {
    serve(
        (exchange, out) -> {
          byte[] body = "{\"error\":\"Unauthorized\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(401, body.length);
          out.write(body);
        });
    assertThatThrownBy(() -> open(Duration.ofSeconds(10), Duration.ofSeconds(10)))
        .isInstanceOf(DaemonException.class)
        .hasMessageContaining("401")
        .hasMessageContaining("Unauthorized");
  }

  @Test
  void aSlowListenerHoldsTheStreamBackInsteadOfBufferingIt() throws Exception {
    int total = 40_000;
    String padding = "x".repeat(1000);
    AtomicLong written = new AtomicLong();
    serve(
        (exchange, out) -> {
          exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
          exchange.sendResponseHeaders(200, 0);
          for (int i = 1; i <= total; i++) {
            byte[] bytes = frame(i, i + padding).getBytes(StandardCharsets.UTF_8);
            out.write(bytes);
            written.addAndGet(bytes.length);
          }
          out.flush();
        });
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger seen = new AtomicInteger();
    DaemonHttp http =
        new DaemonHttp(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
            null,
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            MAX_BYTES,
            timer);
    List<Long> ids = new CopyOnWriteArrayList<>();
    stream =
        new EventStream(
            http,
            "s1",
            null,
            new RecordingListener() {
              @Override
              public void onEvent(DaemonEvent event) {
                ids.add(event.meta().id());
                if (seen.incrementAndGet() == 10) {
                  try {
                    release.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              }
            },
            turns,
            new EventStream.Settings(
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                Duration.ofSeconds(60),
                null,
                MAX_BYTES),
            timer,
            EventStream.Clock.SYSTEM);
    stream.start(-1);

    long totalBytes = (long) total * frame(1, 1 + padding).length();
    await().atMost(LIMIT).until(() -> seen.get() == 10);
    AtomicLong previous = new AtomicLong(-1);
    await()
        .atMost(LIMIT)
        .pollInterval(Duration.ofMillis(100))
        .during(Duration.ofMillis(500))
        .until(() -> written.get() == previous.getAndSet(written.get()));
    long stuckAt = written.get();
    release.countDown();
    await().atMost(LIMIT).until(() -> seen.get() == total);

    assertThat(stuckAt)
        .as("the server could not write past what the socket holds")
        .isLessThan(totalBytes / 2);
    assertThat(ids)
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, total).boxed().collect(Collectors.toList()));
  }

  @Test
  void backsOffAndGivesUpWhenTheDaemonAcceptsAndClosesAtOnce() throws IOException {
    // After 50 connections the server refuses, so a client that never backs off stops too.
    serve(
        (exchange, out) -> {
          if (connections.get() > 50) {
            exchange.sendResponseHeaders(404, -1);
            return;
          }
          events("retry: 0\n\n").play(exchange, out);
        });

    open(
        Duration.ofSeconds(5),
        Duration.ofSeconds(60),
        Duration.ofSeconds(60),
        new FakeClock(),
        events);
    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(died.reason()).isEqualTo("stream_unstable");
    assertThat(died.reportedByDaemon()).isFalse();
    assertThat(reconnectDelays())
        .as(
            "retry: 0 is raised to 100 ms and doubled per attempt; 25.6 s more would pass the 60 s budget")
        .isEqualTo(millis(100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600));
    assertThat(connections.get()).as("the first connection and nine reconnects").isEqualTo(10);
    assertThat(events.awaitStatus(State.LOST, LIMIT).detail()).isEqualTo("stream ended");
  }

  @Test
  void resetsTheBackoffOnlyAfterAConnectionStayedUp() throws IOException {
    FakeClock clock = new FakeClock();
    String died =
        "id: 3\nevent: session_died\ndata: {\"id\":3,\"v\":1,\"type\":\"session_died\",\"data\":{\"sessionId\":\"s1\",\"reason\":\"channel_closed\"}}\n\n";
    Script closeAtOnce = events();
    serve(
        events("retry: 100\n\n"),
        closeAtOnce,
        closeAtOnce,
        (exchange, out) -> {
          events(frame(1, "a")).play(exchange, out);
          await().atMost(LIMIT).until(() -> texts().contains("a"));
          clock.advance(Duration.ofSeconds(11));
        },
        events(frame(2, "b")),
        events(died));

    open(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofSeconds(60), clock, events);
    events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(texts()).containsExactly("a", "b");
    assertThat(reconnectDelays())
        .as(
            "doubling while connections end at once, back to the start after one stayed up for 11 s,"
                + " doubling again after one that delivered an event but closed at once")
        .isEqualTo(millis(100, 200, 400, 100, 200));
  }

  @Test
  void aFailureOnTheReadingThreadEndsTheSessionVisibly() throws IOException {
    serve(events("retry: 100\n\n", frame(1, "a"), frame(2, "b")));
    RecordingListener failing =
        new RecordingListener() {
          @Override
          public void onEvent(DaemonEvent event) {
            super.onEvent(event);
            if (event instanceof AgentMessageChunk chunk && chunk.text().equals("a")) {
              throw new OutOfMemoryError("Java heap space (simulated)");
            }
          }
        };
    var pending = turns.register("p-open");
    open(
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(10),
        EventStream.Clock.SYSTEM,
        failing);

    SessionDied died = failing.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(died.reason()).isEqualTo("reader_failed");
    assertThat(died.reportedByDaemon()).isFalse();
    assertThat(pending)
        .succeedsWithin(LIMIT)
        .extracting(TurnResult::outcome)
        .isEqualTo(Outcome.SESSION_ENDED);
    assertThat(failing.awaitStatus(State.LOST, LIMIT).detail()).contains("OutOfMemoryError");
    assertThat(connections.get()).as("a broken client does not reconnect").isEqualTo(1);
  }

  @Test
  void aMalformedEvictionNoticeDoesNotStopTheStream() throws IOException {
    String died =
        "id: 2\nevent: session_died\ndata: {\"id\":2,\"v\":1,\"type\":\"session_died\",\"data\":{\"sessionId\":\"s1\",\"reason\":\"channel_closed\"}}\n\n";
    serve(events("event: client_evicted\ndata: {not json\n\n", frame(1, "a"), died));

    open(Duration.ofSeconds(10), Duration.ofSeconds(10));
    SessionDied end = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(end.reportedByDaemon()).isTrue();
    assertThat(texts()).containsExactly("a");
  }

  @Test
  void aListenerSlowToHearOfTheConnectionDoesNotHoldUpTheSubscriber() throws Exception {
    CountDownLatch ui = new CountDownLatch(1);
    serve(
        (exchange, out) -> {
          events(frame(1, "a")).play(exchange, out);
          try {
            ui.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    // Hops to a UI thread that is busy, and waits for it with a bound, as listeners may.
    RecordingListener waitsForUi =
        new RecordingListener() {
          @Override
          public void onConnectionChanged(ConnectionStatus status) {
            try {
              ui.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            super.onConnectionChanged(status);
          }
        };
    try {
      CompletableFuture<EventStream> subscribing =
          CompletableFuture.supplyAsync(
              () ->
                  open(
                      Duration.ofSeconds(5),
                      Duration.ofSeconds(10),
                      Duration.ofSeconds(10),
                      EventStream.Clock.SYSTEM,
                      waitsForUi));

      await().atMost(Duration.ofSeconds(5)).until(subscribing::isDone);
      assertThat(subscribing).isCompleted();
    } finally {
      ui.countDown();
    }
    assertThat(waitsForUi.awaitStatus(State.CONNECTED, LIMIT).attempt()).isZero();
    assertThat(waitsForUi.awaitEvent(AgentMessageChunk.class, e -> true, LIMIT).text())
        .isEqualTo("a");
  }

  @Test
  void aRefusalWhoseBodyNeverComesFailsTheSubscribeCall() throws IOException {
    CountDownLatch hold = new CountDownLatch(1);
    serve(
        (exchange, out) -> {
          exchange.sendResponseHeaders(401, 1000);
          out.flush();
          try {
            hold.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    try {
      CompletableFuture<EventStream> subscribing =
          CompletableFuture.supplyAsync(
              () ->
                  open(
                      Duration.ofSeconds(1),
                      Duration.ofSeconds(10),
                      Duration.ofSeconds(10),
                      EventStream.Clock.SYSTEM,
                      events));

      await().atMost(Duration.ofSeconds(5)).until(subscribing::isDone);
      assertThatThrownBy(subscribing::join)
          .hasCauseInstanceOf(DaemonException.class)
          .hasMessageContaining("GET /session/s1/events failed with HTTP 401");
    } finally {
      hold.countDown();
    }
  }
}
