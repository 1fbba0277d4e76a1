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
import dev.companion4j.daemon.testing.RecordingListener;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
    return "id: " + id + "\nevent: session_update\ndata: {\"id\":" + id
        + ",\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":"
        + "\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"" + text + "\"}}}}\n\n";
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private void serve(Script... scripts) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/session/s1/events", exchange -> {
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

  private EventStream open(Duration budget, Duration heartbeat) {
    DaemonHttp http = new DaemonHttp(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort()), null, Duration.ofSeconds(5), Duration.ofSeconds(5));
    stream = new EventStream(http, "s1", "client-1", events, turns,
        new EventStream.Settings(Duration.ofSeconds(5), budget, heartbeat, null), timer, EventStream.Clock.SYSTEM);
    stream.start(-1);
    return stream;
  }

  private List<String> texts() {
    return events.events(AgentMessageChunk.class).stream().map(AgentMessageChunk::text).collect(Collectors.toList());
  }

  @Test
  void resumesFromTheLastIdAndDropsWhatItAlreadyHad() throws IOException {
    String died = "id: 6\nevent: session_died\ndata: {\"id\":6,\"v\":1,\"type\":\"session_died\",\"data\":{\"sessionId\":\"s1\",\"reason\":\"channel_closed\"}}\n\n";
    serve(
        events("retry: 150\n\n", frame(1, "a"), frame(2, "b"), frame(3, "c")),
        events(frame(2, "b"), frame(3, "c"), frame(4, "d"), ": heartbeat\n\n", frame(5, "e"), died));

    open(Duration.ofSeconds(10), Duration.ofSeconds(10));
    SessionDied end = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(texts()).containsExactly("a", "b", "c", "d", "e");
    assertThat(lastEventIds).containsExactly("null", "3");
    assertThat(end.reportedByDaemon()).isTrue();
    assertThat(events.statuses()).extracting(ConnectionStatus::state)
        .containsExactly(State.CONNECTED, State.RECONNECTING, State.CONNECTED, State.LOST);
    assertThat(events.statuses().get(1).retryIn()).as("the server's retry: value").isEqualTo(Duration.ofMillis(150));
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
    assertThat(pending.join().outcome()).isEqualTo(dev.companion4j.daemon.TurnResult.Outcome.SESSION_ENDED);
    assertThat(events.awaitStatus(State.LOST, LIMIT)).isNotNull();
    long reconnects = events.statuses().stream().filter(s -> s.state() == State.RECONNECTING).count();
    assertThat(reconnects).as("delays 100, 200, 400 ms fit a 700 ms budget; 800 does not").isBetween(1L, 3L);
  }

  @Test
  void givesUpWhenTheDaemonNoLongerKnowsTheSession() throws IOException {
    serve(
        events("retry: 100\n\n", frame(1, "a")),
        (exchange, out) -> {
          byte[] body = "{\"error\":\"No session\",\"code\":\"session_not_found\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(404, body.length);
          out.write(body);
        });
    open(Duration.ofSeconds(10), Duration.ofSeconds(10));

    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);

    assertThat(died.reason()).isEqualTo("session_not_found");
    assertThat(died.reportedByDaemon()).isFalse();
    assertThat(events.awaitStatus(State.LOST, LIMIT).detail()).contains("404").contains("No session");
  }

  @Test
  void failsTheSubscribeCallWhenTheFirstConnectionIsRefused() throws IOException {
    serve((exchange, out) -> {
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
    serve((exchange, out) -> {
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
    DaemonHttp http = new DaemonHttp(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort()), null, Duration.ofSeconds(5), Duration.ofSeconds(5));
    List<Long> ids = new CopyOnWriteArrayList<>();
    stream = new EventStream(http, "s1", null, new RecordingListener() {
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
    }, turns, new EventStream.Settings(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(60), null), timer, EventStream.Clock.SYSTEM);
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

    assertThat(stuckAt).as("the server could not write past what the socket holds").isLessThan(totalBytes / 2);
    assertThat(ids).containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().collect(Collectors.toList()));
  }
}
