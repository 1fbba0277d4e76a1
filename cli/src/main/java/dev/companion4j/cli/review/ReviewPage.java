package dev.companion4j.cli.review;

import dev.companion4j.engine.http.OnFirstRequest;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ResourceServlet;

/**
 * The browser review page: static assets bundled into the jar at build time (see {@code
 * cli/src/main/frontend}), served without the token because a browser navigation cannot send a
 * bearer header. The page holds no editor data; it reads everything through the token-guarded
 * editor API, with the token it finds in its URL fragment.
 */
public final class ReviewPage {
  /** Where the Maven build puts the bundled page on the classpath. */
  static final String ASSET_ROOT = "dev/companion4j/cli/review/assets/";

  /** Where the page is served; the servlet is mapped at {@code PATH + "*"}. */
  public static final String PATH = "/review/";

  /**
   * Only the page's own scripts and styles, and requests to its own origin. No inline style, so
   * nothing that reaches the page as text (a chat message above all) can restyle it: the page sets
   * styles through the CSSOM, which the policy allows, and CodeMirror's own style sheet carries the
   * nonce of {@link #policy}.
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; "
          + "connect-src 'self'; img-src 'self' data:; font-src 'self'; "
          + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  /** Where the build's index.html takes the style nonce. */
  private static final String NONCE_SLOT = "%NONCE%";

  /** The policy of the page itself: style elements only with {@code nonce}. */
  static String policy(String nonce) {
    return CONTENT_SECURITY_POLICY.replace(
        "style-src 'self';", "style-src 'self' 'nonce-" + nonce + "';");
  }

  private ReviewPage() {}

  /**
   * Serves the page under {@value #PATH}; map it at {@code "/review/*"} as a public route.
   *
   * @throws IllegalStateException when the page was not bundled into the classpath
   */
  public static HttpServlet assetsServlet() {
    URL index = ReviewPage.class.getClassLoader().getResource(ASSET_ROOT + "index.html");
    if (index == null) {
      throw new IllegalStateException(
          "the review page is not on the classpath at " + ASSET_ROOT + "; build it with Maven");
    }
    String url = index.toString();
    try {
      URL base = new URL(url.substring(0, url.length() - "index.html".length()));
      // Jetty opens the whole jar as a file system to serve the assets, some 20 ms that most
      // starts never need.
      return new OnFirstRequest(
          () -> {
            try {
              return new Assets(base);
            } catch (IOException e) {
              throw new ServletException("cannot read the review page from the jar", e);
            }
          });
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The page's address, with the token in the fragment so that it never reaches a server. */
  public static String pageUrl(int port, String token) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (token == null || !token.matches("[0-9A-Za-z_-]+")) {
      throw new IllegalArgumentException("token must be a non-empty URL-safe string");
    }
    return "http://127.0.0.1:" + port + PATH + "#token=" + token;
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[18];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /**
   * Jetty's own resource serving over the bundled assets (ETags, HEAD, conditional requests, no
   * listings), with the page's security headers and caching on every answer.
   */
  private static final class Assets extends ResourceServlet {
    private static final long serialVersionUID = 1L;
    private final transient Map<String, String> settings;

    /**
     * The page, with a nonce drawn once per companion: it is cached by its ETag as the other assets
     * are.
     */
    private final transient String nonce = Base64.getEncoder().encodeToString(randomBytes());

    private final transient byte[] page;
    private final transient String pageTag;

    Assets(URL base) throws IOException {
      try (InputStream in = new URL(base, "index.html").openStream()) {
        page =
            new String(in.readAllBytes(), StandardCharsets.UTF_8)
                .replace(NONCE_SLOT, nonce)
                .getBytes(StandardCharsets.UTF_8);
      }
      pageTag = "\"" + HexFormat.of().formatHex(Arrays.copyOf(sha256(page), 12)) + "\"";
      settings =
          Map.of(
              "baseResource", base.toString(),
              // The resource path is what follows /review/, not the whole request path.
              "pathInfoOnly", "true",
              "dirAllowed", "false",
              "etags", "true",
              "precompressed", "false");
    }

    @Override
    public String getInitParameter(String name) {
      return settings.get(name);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp)
        throws ServletException, IOException {
      String rest = req.getPathInfo();
      if (rest == null) {
        // "/review" without the slash: relative asset links need the directory form. The
        // browser keeps the #token fragment across the redirect.
        resp.setStatus(HttpServletResponse.SC_MOVED_PERMANENTLY);
        resp.setHeader("Location", PATH);
        return;
      }
      if (rest.equals("/") || rest.equals("/index.html")) {
        securityHeaders(resp, policy(nonce));
        resp.setHeader("Cache-Control", "no-cache");
        resp.setHeader("ETag", pageTag);
        if (pageTag.equals(req.getHeader("If-None-Match"))) {
          resp.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
          return;
        }
        resp.setContentType("text/html;charset=utf-8");
        resp.setContentLength(page.length);
        resp.getOutputStream().write(page);
        return;
      }
      securityHeaders(resp, CONTENT_SECURITY_POLICY);
      // Everything but the page itself has a content hash in its name.
      resp.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      resp.setCharacterEncoding(StandardCharsets.UTF_8.name());
      super.doGet(req, resp);
    }

    @Override
    protected void doNotFound(HttpServletRequest req, HttpServletResponse resp, String path)
        throws IOException {
      resp.setHeader("Cache-Control", "no-store");
      super.doNotFound(req, resp, path);
    }

    private static void securityHeaders(HttpServletResponse resp, String policy) {
      resp.setHeader("Content-Security-Policy", policy);
      resp.setHeader("X-Content-Type-Options", "nosniff");
      resp.setHeader("Referrer-Policy", "no-referrer");
      resp.setHeader("X-Frame-Options", "DENY");
      resp.setHeader("Cross-Origin-Opener-Policy", "same-origin");
      resp.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    }
  }
}
