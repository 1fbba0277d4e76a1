package dev.companion4j.engine.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.internal.loop.FakeScheduler;
import dev.companion4j.engine.internal.sse.Liveness;
import dev.companion4j.engine.internal.sse.SseChannel;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Sessions without Jetty: the cap, idle reaping and notifications held until a stream opens, on a
 * fake clock.
 */
class SessionRegistryTest {
  private static final Duration IDLE = Duration.ofMinutes(2);

  final FakeScheduler clock = new FakeScheduler();
  final Recorder events = new Recorder();

  SessionRegistry registry(int maxSessions, int maxFrames) {
    return new SessionRegistry(
        new SessionRegistry.Settings(
            maxSessions,
            IDLE,
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            new SseChannel.Limits(maxFrames, 1024 * 1024)),
        Clock.systemUTC(),
        clock,
        new Liveness(clock::nanoTime),
        events);
  }

  static McpStreamableServerSession sdkSession(String id) {
    return new McpStreamableServerSession(
        id,
        new McpSchema.ClientCapabilities(null, null, null, null),
        new McpSchema.Implementation("cli", "1"),
        Duration.ofSeconds(10),
        Map.of(),
        Map.of());
  }

  @Test
  void theCapHoldsWhenHandshakesRace() throws Exception {
    SessionRegistry registry = registry(8, 16);
    ExecutorService threads = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    for (int i = 0; i < 64; i++) {
      String id = "s" + i;
      threads.execute(
          () -> {
            try {
              go.await();
            } catch (InterruptedException e) {
              return;
            }
            if (registry.register(sdkSession(id), "cli", "1")) {
              admitted.incrementAndGet();
            } else if (registry.refusedForCapacity()) {
              refused.incrementAndGet();
            }
          });
    }
    go.countDown();
    threads.shutdown();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    assertThat(admitted).hasValue(8);
    assertThat(refused).hasValue(56);
    assertThat(registry.clients()).hasSize(8);
    assertThat(events.connected).hasSize(8);
  }

  @Test
  void aSessionWithoutStreamOrRequestsIsClosedOnceIdleLongerThanTheTimeout() {
    SessionRegistry registry = registry(4, 16);
    registry.register(sdkSession("quiet"), "cli", "1");
    registry.register(sdkSession("busy"), "cli", "1");

    clock.advance(IDLE.minusSeconds(30));
    registry.touch("busy");
    clock.advance(Duration.ofSeconds(31));
    registry.sweep();

    assertThat(events.departures).containsExactly("quiet " + SessionRegistry.Departure.IDLE);
    assertThat(registry.clients()).extracting(ConnectedClient::id).containsExactly("busy");
    assertThat(registry.touch("quiet")).as("its requests are refused from now on").isFalse();

    clock.advance(IDLE);
    registry.sweep();
    assertThat(registry.clients()).isEmpty();
  }

  @Test
  void notificationsWaitForTheStreamAndTheNewestContextReplacesAnOlderOne() {
    SessionRegistry registry = registry(4, 16);
    registry.register(sdkSession("s"), "cli", "1");

    assertThat(registry.notify("s", "context", "ide/contextUpdate", Map.of("n", 1))).isTrue();
    assertThat(registry.notify("s", null, "ide/diffAccepted", Map.of("filePath", "/a"))).isTrue();
    assertThat(registry.notify("s", "context", "ide/contextUpdate", Map.of("n", 2))).isTrue();

    assertThat(registry.held("s"))
        .extracting(
            frame ->
                frame.replaceAll(
                    "(?s).*\"method\":\"([^\"]+)\".*\"params\":(\\{[^}]*\\}).*", "$1 $2"))
        .containsExactly("ide/contextUpdate {\"n\":2}", "ide/diffAccepted {\"filePath\":\"/a\"}");
  }

  @Test
  void aSessionWhoseHeldNotificationsOverflowIsClosedAndLaterSendsReportIt() {
    SessionRegistry registry = registry(4, 3);
    registry.register(sdkSession("s"), "cli", "1");
    for (int i = 0; i < 3; i++) {
      assertThat(registry.notify("s", null, "ide/diffRejected", Map.of("i", i))).isTrue();
    }

    assertThat(registry.notify("s", null, "ide/diffRejected", Map.of("i", 3))).isFalse();

    assertThat(events.departures).containsExactly("s " + SessionRegistry.Departure.OVERFLOW);
    assertThat(registry.notify("s", null, "ide/diffRejected", Map.of())).isFalse();
  }

  @Test
  void closingIsIdempotentAndNoSessionRegistersAfterTheStop() {
    SessionRegistry registry = registry(4, 16);
    registry.register(sdkSession("s"), "cli", "1");

    registry.close("s", SessionRegistry.Departure.GOODBYE);
    registry.close("s", SessionRegistry.Departure.GOODBYE);
    registry.closeAll();

    assertThat(events.departures).containsExactly("s " + SessionRegistry.Departure.GOODBYE);
    assertThat(registry.register(sdkSession("late"), "cli", "1")).isFalse();
  }

  static final class Recorder implements SessionRegistry.Events {
    final List<ConnectedClient> connected = new CopyOnWriteArrayList<>();
    final List<String> departures = new ArrayList<>();

    @Override
    public void connected(ConnectedClient client) {
      connected.add(client);
    }

    @Override
    public void streamOpened(String sessionId) {}

    @Override
    public synchronized void disconnected(ConnectedClient client, SessionRegistry.Departure why) {
      departures.add(client.id() + " " + why);
    }
  }
}
