package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.discovery.CompanionProof;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ide/proof}: a client proves the companion behind a port before it sends the token.
 */
class CompanionProofTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theCompanionProvesItsTokenToAClientThatSendsNone(@TempDir Path temp) throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      int port = f.companion().port();
      assertThat(CompanionProof.holdsToken(port, f.companion().authToken(), TIMEOUT)).isTrue();
      assertThat(CompanionProof.holdsToken(port, "another token", TIMEOUT)).isFalse();

      String nonce = CompanionProof.nonce();
      HttpResponse<String> answer = get(port, CompanionProof.PATH + "?nonce=" + nonce);
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body())
          .isEqualTo(
              "{\"proof\":\"" + CompanionProof.answer(nonce, f.companion().authToken()) + "\"}")
          .doesNotContain(f.companion().authToken());
    }
  }

  @Test
  void onlyTheExactRouteGoesWithoutTheTokenAndItTakesOnlyANonce(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      int port = f.companion().port();
      assertThat(get(port, CompanionProof.PATH + "?nonce=abc").statusCode()).isEqualTo(400);
      assertThat(
              get(port, CompanionProof.PATH + "?nonce=" + CompanionProof.nonce().toUpperCase())
                  .statusCode())
          .isEqualTo(400);
      assertThat(get(port, CompanionProof.PATH).statusCode()).isEqualTo(400);
      assertThat(get(port, CompanionProof.PATH + "/status").statusCode()).isEqualTo(401);
      assertThat(get(port, "/ide/status").statusCode()).isEqualTo(401);
      HttpResponse<String> post =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:"
                              + port
                              + CompanionProof.PATH
                              + "?nonce="
                              + CompanionProof.nonce()))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void aServerWithoutTheTokenCannotPassAndHearsNoToken() throws Exception {
    try (ServerSocket impostor = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<String> heard =
          CompletableFuture.supplyAsync(
              () -> {
                try (Socket s = impostor.accept()) {
                  s.setSoTimeout(5000);
                  BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                  StringBuilder head = new StringBuilder();
                  for (String line = in.readLine();
                      line != null && !line.isEmpty();
                      line = in.readLine()) {
                    head.append(line).append('\n');
                  }
                  // Claims a proof made without the token, for the nonce it was sent.
                  Matcher nonce = Pattern.compile("nonce=([0-9a-f]{64})").matcher(head);
                  String body =
                      "{\"proof\":\""
                          + (nonce.find() ? CompanionProof.answer(nonce.group(1), "") : "")
                          + "\"}";
                  s.getOutputStream()
                      .write(
                          ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                  + body.length()
                                  + "\r\nConnection: close\r\n\r\n"
                                  + body)
                              .getBytes(StandardCharsets.ISO_8859_1));
                  return head.toString();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      String token = "the lock's token";
      assertThat(CompanionProof.holdsToken(impostor.getLocalPort(), token, TIMEOUT)).isFalse();
      assertThat(heard.get(5, TimeUnit.SECONDS))
          .startsWith("GET " + CompanionProof.PATH + "?nonce=")
          .doesNotContain(token)
          .doesNotContainIgnoringCase("authorization");
    }
  }

  @Test
  void noCompanionOnThePortIsNoProof() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      free = s.getLocalPort();
    }
    assertThat(CompanionProof.holdsToken(free, "token", TIMEOUT)).isFalse();
    assertThat(CompanionProof.holdsToken(0, "token", TIMEOUT)).isFalse();
  }

  private HttpResponse<String> get(int port, String pathAndQuery) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
