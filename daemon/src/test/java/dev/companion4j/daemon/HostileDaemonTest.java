package dev.companion4j.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.testing.RecordingListener;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client against a daemon that lies about sizes and timing: answers that never end, bodies that
 * never come, a token echoed back. Every case must end in a precise error or a {@link SessionDied},
 * never in a hang or an exhausted heap.
 */
class HostileDaemonTest {
  private static final Duration LIMIT = Duration.ofSeconds(10);
  private static final String TOKEN = "hostile-test-token-0123456789";

  /**
   * What the hostile server is willing to send at most, so a client that never stops is bounded
   * too.
   */
  private static final long MAX_SENT = 64L * 1024 * 1024;

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean sentAll = new AtomicBoolean();
  private final CountDownLatch handlerDone = new CountDownLatch(1);
  private HttpServer server;
  private DaemonClient client;

  @AfterEach
  void stop() {
    release.countDown();
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  private void serve(String path, HttpHandler handler) throws IOException {
    if (server == null) {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.setExecutor(Executors.newCachedThreadPool());
      server.start();
    }
    server.createContext(
        path,
        exchange -> {
          try (exchange) {
            handler.handle(exchange);
          } catch (IOException e) {
            // The client hung up, which is what these tests want.
          }
        });
  }

  private DaemonClient client(Duration requestTimeout) {
    client =
        DaemonClient.builder()
            .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .token(TOKEN)
            .requestTimeout(requestTimeout)
            .build();
    return client;
  }

  private static void json(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  /** Writes {@code prefix}, then {@code chunk} until the client hangs up or {@link #MAX_SENT}. */
  private void endless(OutputStream out, String prefix, String chunk) throws IOException {
    try {
      byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
      out.write(prefix.getBytes(StandardCharsets.UTF_8));
      for (long sent = 0; sent < MAX_SENT; sent += bytes.length) {
        out.write(bytes);
      }
      out.flush();
      sentAll.set(true);
    } finally {
      handlerDone.countDown();
    }
  }

  private void holdUntilReleased() {
    try {
      release.await(LIMIT.toSeconds() * 2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void anEndlessEventEndsTheSessionInsteadOfFillingTheHeap() throws Exception {
    serve(
        "/session",
        exchange -> {
          if (exchange.getRequestURI().getPath().endsWith("/events")) {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            endless(
                exchange.getResponseBody(),
                "retry: 3000\n\n",
                "data: " + "x".repeat(64 * 1024 - 7) + "\n");
            holdUntilReleased();
          } else if (exchange.getRequestURI().getPath().equals("/session")) {
            json(exchange, 200, "{\"sessionId\":\"s1\",\"clientId\":\"c1\",\"attached\":false}");
          } else {
            exchange.sendResponseHeaders(204, -1);
          }
        });
    RecordingListener events = new RecordingListener();

    try (DaemonSession session =
        client(Duration.ofSeconds(5)).createOrAttach(SessionOptions.forWorkspace("/w"))) {
      session.subscribe(events);

      SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);
      assertThat(died.reason()).isEqualTo("event_too_large");
      assertThat(died.reportedByDaemon()).isFalse();
      assertThat(events.awaitStatus(State.LOST, LIMIT).detail())
          .contains("longer than 16777216 bytes")
          .doesNotContain(TOKEN);
      assertThat(handlerDone.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(sentAll).as("the client hung up before the server sent its 64 MiB").isFalse();
    }
  }

  @Test
  void aHugeJsonAnswerIsRefusedWithoutReadingItAll() throws Exception {
    serve(
        "/capabilities",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 0);
          endless(
              exchange.getResponseBody(),
              "{\"v\":1,\"features\":[",
              "\"" + "f".repeat(1000) + "\",");
        });

    assertThatThrownBy(client(Duration.ofSeconds(5))::capabilities)
        .isInstanceOf(DaemonException.class)
        .hasMessage("GET /capabilities: the daemon's answer is longer than 4194304 bytes")
        .satisfies(e -> assertThat(((DaemonException) e).status()).isEqualTo(200));
    assertThat(handlerDone.await(LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(sentAll).as("the client hung up before the server sent its 64 MiB").isFalse();
  }

  @Test
  void anAnswerWhoseBodyNeverComesTimesOut() throws Exception {
    serve(
        "/capabilities",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 100);
          exchange.getResponseBody().flush();
          holdUntilReleased();
        });
    DaemonClient impatient = client(Duration.ofSeconds(1));

    CompletableFuture<Capabilities> asking = CompletableFuture.supplyAsync(impatient::capabilities);

    await().atMost(Duration.ofSeconds(5)).until(asking::isDone);
    assertThatThrownBy(asking::join)
        .hasCauseInstanceOf(DaemonException.class)
        .hasMessageContaining(
            "GET /capabilities: the daemon's answer did not arrive in full within 1000 ms")
        .hasMessageNotContaining(TOKEN);
  }

  @Test
  void theTokenStaysOutOfAnErrorThatEchoesIt() throws Exception {
    serve(
        "/capabilities",
        exchange ->
            json(
                exchange,
                500,
                "{\"error\":\"refused "
                    + exchange.getRequestHeaders().getFirst("Authorization")
                    + "\"}"));

    assertThatThrownBy(client(Duration.ofSeconds(5))::capabilities)
        .isInstanceOf(DaemonException.class)
        .hasMessageContaining("GET /capabilities failed with HTTP 500: refused Bearer")
        .hasMessageNotContaining(TOKEN);
  }

  @Test
  void theLimitsAreSetOnTheBuilder() throws Exception {
    serve(
        "/capabilities",
        exchange -> json(exchange, 200, "{\"v\":1,\"mode\":\"" + "m".repeat(2000) + "\"}"));
    client =
        DaemonClient.builder()
            .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .maxResponseBytes(1024)
            .maxEventBytes(1024)
            .build();

    assertThatThrownBy(client::capabilities)
        .isInstanceOf(DaemonException.class)
        .hasMessage("GET /capabilities: the daemon's answer is longer than 1024 bytes");
    assertThatThrownBy(() -> DaemonClient.builder().maxEventBytes(1023))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 KiB and 1 GiB");
  }
}
