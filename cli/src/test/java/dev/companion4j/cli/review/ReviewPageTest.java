package dev.companion4j.cli.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The bundled page as a real companion serves it: assets, headers, and what it refuses. */
class ReviewPageTest {
  @TempDir static Path temp;
  private static Companion companion;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws IOException {
    CompanionHost host =
        new CompanionHost() {
          @Override
          public IdeInfo ideInfo() {
            return new IdeInfo("companion4j", "Companion4J");
          }

          @Override
          public List<Path> workspaceRoots() {
            return List.of(temp);
          }

          @Override
          public void showDiff(PendingDiff diff, DiffReview review) {}

          @Override
          public Optional<String> closeDiff(PendingDiff diff) {
            return Optional.empty();
          }
        };
    companion =
        Companion.builder(host)
            .discoveryLocations(
                new DiscoveryLocations(
                    Files.createDirectories(temp.resolve("tmp")), temp.resolve("qwen")))
            .publicRoute(ReviewPage.PATH + "*", ReviewPage.assetsServlet())
            .build();
    companion.start();
  }

  @AfterAll
  static void stop() {
    companion.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String contentType(HttpResponse<?> r) {
    return r.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase();
  }

  @Test
  void servesThePageWithoutTokenWithAStrictPolicyAndNoCaching() throws Exception {
    HttpResponse<String> page = get("/review/");

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(contentType(page)).isEqualTo("text/html;charset=utf-8");
    assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
    assertThat(page.headers().firstValue("Content-Security-Policy"))
        .get()
        .asString()
        .contains(
            "default-src 'none'",
            "script-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'")
        // Neither scripts nor styles inline: text that reaches the page cannot restyle it.
        .doesNotContain("unsafe-eval", "unsafe-inline");
    Matcher nonce =
        Pattern.compile("style-src 'self' 'nonce-([A-Za-z0-9+/]{24})';")
            .matcher(page.headers().firstValue("Content-Security-Policy").orElseThrow());
    assertThat(nonce.find()).as("style elements only with the page's nonce").isTrue();
    assertThat(page.body()).contains("nonce=\"" + nonce.group(1) + "\"");
    assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
    assertThat(page.body())
        .contains("<title>Companion4J review</title>")
        .doesNotContain("<script>");
  }

  @Test
  void servesTheHashedScriptAndStyleTheIndexNamesAsImmutable() throws Exception {
    String index = get("/review/").body();
    Matcher script = Pattern.compile("src=\"(review-[A-Z0-9]+\\.js)\"").matcher(index);
    Matcher style = Pattern.compile("href=\"(style-[A-Z0-9]+\\.css)\"").matcher(index);
    assertThat(script.find()).as(index).isTrue();
    assertThat(style.find()).as(index).isTrue();

    HttpResponse<String> js = get("/review/" + script.group(1));
    HttpResponse<String> css = get("/review/" + style.group(1));

    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(contentType(js)).isEqualTo("text/javascript;charset=utf-8");
    assertThat(js.headers().firstValue("Cache-Control"))
        .hasValue("public, max-age=31536000, immutable");
    assertThat(css.statusCode()).isEqualTo(200);
    assertThat(contentType(css)).isEqualTo("text/css;charset=utf-8");
  }

  @Test
  void redirectsTheBareReviewPathToTheDirectory() throws Exception {
    HttpResponse<String> r = get("/review");

    assertThat(r.statusCode()).isEqualTo(301);
    assertThat(r.headers().firstValue("Location")).get().asString().endsWith("/review/");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/review/nope.js",
        "/review/assets/",
        "/review/..%2FReviewPage.class",
        "/review/%2e%2e/ReviewPage.class",
        "/review/.hidden.js",
        "/review/ReviewPage.class",
        "/review/index.html/x"
      })
  void refusesUnknownAssetsTraversalAndListings(String path) throws Exception {
    HttpResponse<String> r = get(path);

    assertThat(r.statusCode()).as(path).isIn(400, 404);
    assertThat(r.body())
        .as("neither the page nor a class file")
        .doesNotContain("review-", "\u00ca\u00fe\u00ba\u00be");
    assertThat(r.headers().firstValue("Cache-Control"))
        .as("a miss is never cached as immutable")
        .isNotEqualTo(Optional.of("public, max-age=31536000, immutable"));
  }

  @Test
  void anUnchangedAssetIsAnsweredNotModified() throws Exception {
    HttpResponse<String> page = get("/review/");
    String etag =
        page.headers()
            .firstValue("ETag")
            .orElseThrow(() -> new AssertionError("no ETag: " + page.headers()));

    HttpResponse<String> again =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/review/"))
                .header("If-None-Match", etag)
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(again.headers().firstValue("Content-Security-Policy")).isPresent();
  }

  @Test
  void headIsAnsweredAndPostIsRefused() throws Exception {
    HttpResponse<String> head =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/review/"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + companion.port() + "/review/"))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(post.statusCode()).isBetween(400, 405);
  }

  @Test
  void pageUrlCarriesTheTokenOnlyInTheFragment() {
    String url = ReviewPage.pageUrl(4711, "00ff");

    assertThat(url).isEqualTo("http://127.0.0.1:4711/review/#token=00ff");
    assertThat(URI.create(url).getRawQuery()).isNull();
    assertThatThrownBy(() -> ReviewPage.pageUrl(0, "00ff"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReviewPage.pageUrl(4711, "a b"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
