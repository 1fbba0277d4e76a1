package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.http.OnFirstRequest;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A route set up on its first request: not before, once, behind the token, and ready to serve. */
class OnFirstRequestTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicInteger setUps = new AtomicInteger();

  @Test
  void isSetUpOnceOnItsFirstAdmittedRequestAndConfiguredBeforeItServes(@TempDir Path temp)
      throws Exception {
    try (Companion companion = started(temp, () -> servletNamingItself())) {
      assertThat(setUps).hasValue(0);

      assertThat(get(companion, null).statusCode()).isEqualTo(401);
      assertThat(setUps).as("a refused request sets nothing up").hasValue(0);

      HttpResponse<String> first = get(companion, companion.authToken());
      HttpResponse<String> second = get(companion, companion.authToken());
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.body())
          .as("its servlet name, from the configuration it was given")
          .isNotBlank();
      assertThat(second.body()).isEqualTo(first.body());
      assertThat(setUps).hasValue(1);
    }
  }

  @Test
  void aFailedSetUpFailsThatRequestAndTheNextTriesAgain(@TempDir Path temp) throws Exception {
    try (Companion companion =
        started(
            temp,
            () -> {
              if (setUps.get() == 1) {
                throw new ServletException("not yet");
              }
              return servletNamingItself();
            })) {
      assertThat(get(companion, companion.authToken()).statusCode()).isEqualTo(500);
      assertThat(get(companion, companion.authToken()).statusCode()).isEqualTo(200);
      assertThat(setUps).hasValue(2);
    }
  }

  private Companion started(Path temp, OnFirstRequest.Setup setup) throws IOException {
    Path workspace = Files.createDirectories(temp.resolve("ws"));
    Companion companion =
        CompanionFixture.builder(temp, new RecordingHost(workspace))
            .route(
                "/late/*",
                new OnFirstRequest(
                    () -> {
                      setUps.incrementAndGet();
                      return setup.create();
                    }))
            .build();
    companion.start();
    return companion;
  }

  private static HttpServlet servletNamingItself() {
    return new HttpServlet() {
      private static final long serialVersionUID = 1L;

      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.getWriter().print(getServletName());
      }
    };
  }

  private HttpResponse<String> get(Companion companion, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/late/x"));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
