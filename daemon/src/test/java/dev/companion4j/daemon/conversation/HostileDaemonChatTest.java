package dev.companion4j.daemon.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.SessionSummary;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A daemon that puts its own token, plainly and encoded, into everything it sends a chat view:
 * model names, session titles, the workspace, and an answer whose chunks split the token. None of
 * it reaches the view's status.
 */
class HostileDaemonChatTest {
  private static final String TOKEN = "Hostile-Chat-Token_0123456789abcdef";
  private static final String WORKSPACE = "/w";
  private static final String B64 =
      Base64.getEncoder().encodeToString(("Bearer " + TOKEN).getBytes(StandardCharsets.UTF_8));
  private static final String B64URL =
      Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(TOKEN.getBytes(StandardCharsets.UTF_8));
  private static final String HEX =
      HexFormat.of().formatHex(TOKEN.getBytes(StandardCharsets.UTF_8)).toUpperCase(Locale.ROOT);
  private static final String URL =
      URLEncoder.encode(TOKEN, StandardCharsets.UTF_8).replace("_", "%5f").replace("-", "%2D");

  private final CountDownLatch release = new CountDownLatch(1);
  private HttpServer server;
  private DaemonChat chat;

  @AfterEach
  void stop() {
    release.countDown();
    if (chat != null) {
      chat.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void theTokenInAnyCommonEncodingStaysOutOfWhatAChatViewIsGiven() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            answer(exchange);
          } catch (IOException e) {
            // The client hung up.
          }
        });
    server.start();
    AtomicReference<DaemonChat.Status> last = new AtomicReference<>();
    DaemonClient client =
        DaemonClient.builder()
            .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .token(TOKEN)
            .build();
    chat = new DaemonChat(DaemonSource.running(client), List.of(WORKSPACE), last::set);

    chat.connect();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                last.get() != null
                    && last.get()
                        .conversation()
                        .map(
                            c ->
                                c.entries().size() == 1
                                    && !c.turnRunning()
                                    && c.entries().get(0) instanceof Entry.AssistantMessage m
                                    && m.text().endsWith("end"))
                        .orElse(false));
    List<SessionSummary> sessions = chat.sessions();

    String shown = last.get() + " " + sessions;
    for (String secret :
        new String[] {
          TOKEN,
          TOKEN.toLowerCase(Locale.ROOT),
          TOKEN.toUpperCase(Locale.ROOT),
          B64URL,
          HEX,
          HEX.toLowerCase(Locale.ROOT),
          URL,
          B64.substring(12, B64.length() - 4),
          "Hostile-Chat",
          "0123456789abcdef"
        }) {
      assertThat(shown).as(secret).doesNotContain(secret);
    }
    assertThat(last.get().daemon()).isEqualTo("127.0.0.1:" + server.getAddress().getPort());
    assertThat(last.get().models()).containsExactly("qwen-[token]");
    // The last base64 character holds bits of what follows the token too: it stays.
    assertThat(sessions)
        .extracting(SessionSummary::displayName)
        .singleElement()
        .asString()
        .matches("title \\[token]\\S? \\[token]");
    assertThat(
            ((Entry.AssistantMessage) last.get().conversation().orElseThrow().entries().get(0))
                .text())
        .isEqualTo("key: [token], hex [token], end");
  }

  @Test
  void aViewNamesTheDaemonByHostAndPortOnly() throws Exception {
    DaemonClient client =
        DaemonClient.builder()
            .baseUrl("http://127.0.0.1:9/" + TOKEN)
            .token(TOKEN)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    chat = new DaemonChat(DaemonSource.running(client), List.of(WORKSPACE), status -> {});

    chat.connect();

    assertThat(chat.status().problem())
        .contains("cannot reach the daemon at 127.0.0.1:9 ")
        .doesNotContain("http:", TOKEN);
  }

  private void answer(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (path.equals("/capabilities")) {
      json(
          exchange,
          "{\"v\":1,\"workspaceCwd\":\""
              + WORKSPACE
              + "\",\"features\":[],\"modelServices\":[\"qwen-"
              + TOKEN.toLowerCase(Locale.ROOT)
              + "\"]}");
    } else if (path.equals("/session")) {
      json(
          exchange,
          "{\"sessionId\":\"s1\",\"clientId\":\"c1\",\"workspaceCwd\":\""
              + WORKSPACE
              + "\",\"attached\":false}");
    } else if (path.startsWith("/workspace/")) {
      json(
          exchange,
          "{\"sessions\":[{\"sessionId\":\"s1\",\"workspaceCwd\":\""
              + WORKSPACE
              + "\",\"displayName\":\"title "
              + B64URL
              + " "
              + URL
              + "\"}]}");
    } else if (path.equals("/session/s1/events")) {
      exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      // The token split across two chunks, then hex-encoded in a third.
      int half = TOKEN.length() / 2;
      write(
          out,
          chunk(1, "key: " + TOKEN.substring(0, half))
              + chunk(2, TOKEN.substring(half) + ", hex " + HEX + ", end")
              + "id: 3\nevent: turn_complete\ndata: {\"id\":3,\"v\":1,\"type\":\"turn_complete\",\"data\":{\"stopReason\":\"end_turn\"}}\n\n");
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      exchange.sendResponseHeaders(204, -1);
    }
  }

  private static String chunk(long id, String text) {
    return "id: "
        + id
        + "\nevent: session_update\ndata: {\"id\":"
        + id
        + ",\"v\":1,\"type\":\"session_update\",\"promptId\":\"p1\","
        + "\"data\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\","
        + "\"text\":\""
        + text
        + "\"}}}}\n\n";
  }

  private static void json(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
