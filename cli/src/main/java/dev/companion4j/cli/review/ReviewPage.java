package dev.companion4j.cli.review;

import dev.companion4j.cli.os.Executables;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.awt.Desktop;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.ResourceServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The browser review page: static assets bundled into the jar at build time (see {@code
 * cli/src/main/frontend}), served without the token because a browser navigation cannot send a
 * bearer header. The page holds no editor data; it reads everything through the token-guarded
 * editor API, with the token it finds in its URL fragment.
 */
public final class ReviewPage {
  private static final Logger log = LoggerFactory.getLogger(ReviewPage.class);

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
      return new OnFirstRequest(new URL(url.substring(0, url.length() - "index.html".length())));
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

  /**
   * Opens {@code url} in the default browser, without waiting for it: {@code open} on macOS, {@code
   * xdg-open} on Linux and other Unix desktops, {@link Desktop#browse} otherwise. Logs how to open
   * it by hand when none of these works.
   *
   * <p>The token never becomes a process argument, which every local user can read: the browser is
   * pointed at an owner-only file that redirects to {@code url}, removed when the JVM exits.
   *
   * @return completes when the browser launcher has ended (the browser itself may still be loading)
   */
  public static CompletableFuture<Void> open(String url) {
    Path privateDir;
    try {
      privateDir =
          Files.createTempDirectory(
              "companion4j-", PosixFilePermissions.asFileAttribute(OWNER_DIR));
    } catch (IOException | UnsupportedOperationException e) {
      couldNotOpen(url, "cannot write the launch file: " + e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    return open(url, privateDir, System.getProperty("os.name", ""), System.getenv());
  }

  /** Whether {@link #open} has a way to show a browser here: a launcher, or a desktop session. */
  public static boolean canOpenBrowser() {
    // A Unix desktop's launcher needs a display; elsewhere `open` or Desktop.browse serves.
    return !isUnix(System.getProperty("os.name", "")) || hasDisplay(System.getenv());
  }

  static CompletableFuture<Void> open(
      String url, Path privateDir, String osName, Map<String, String> env) {
    String target;
    try {
      target = launchFile(url, privateDir).toUri().toString();
    } catch (IOException e) {
      couldNotOpen(url, "cannot write the launch file: " + e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    return open(target, url, osName, env);
  }

  private static final Set<PosixFilePermission> OWNER_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OWNER_FILE =
      PosixFilePermissions.fromString("rw-------");

  /** Writes an owner-only page in {@code privateDir} that sends the browser on to {@code url}. */
  static Path launchFile(String url, Path privateDir) throws IOException {
    Path file =
        Files.createFile(
            privateDir.resolve("review.html"), PosixFilePermissions.asFileAttribute(OWNER_FILE));
    Files.writeString(
        file,
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url="
            + url
            + "\"><title>Companion4J</title><a href=\""
            + url
            + "\">Open the review page</a>\n");
    file.toFile().deleteOnExit();
    privateDir.toFile().deleteOnExit();
    return file;
  }

  /**
   * @param target what the launcher is given (the launch file)
   * @param url the page itself, shown on the terminal only if nothing can open it
   */
  private static CompletableFuture<Void> open(
      String target, String url, String osName, Map<String, String> env) {
    Optional<List<String>> command = browserCommand(target, osName, env);
    if (command.isPresent()) {
      try {
        Process p =
            new ProcessBuilder(command.get())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.onExit()
            .thenAccept(
                done -> {
                  if (done.exitValue() != 0) {
                    couldNotOpen(url, command.get().get(0) + " exited with " + done.exitValue());
                  }
                });
      } catch (IOException e) {
        log.debug("{} failed, trying java.awt.Desktop", command.get().get(0), e);
      }
    }
    if (!osName.toLowerCase(Locale.ROOT).contains("linux") || hasDisplay(env)) {
      try {
        if (Desktop.isDesktopSupported()
            && Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) {
          Desktop.getDesktop().browse(URI.create(target));
          return CompletableFuture.completedFuture(null);
        }
      } catch (IOException | UnsupportedOperationException e) {
        couldNotOpen(url, e.getMessage());
        return CompletableFuture.completedFuture(null);
      }
    }
    couldNotOpen(
        url,
        hasDisplay(env) || !isUnix(osName) ? "no browser launcher found" : "no graphical session");
    return CompletableFuture.completedFuture(null);
  }

  /** The launcher to run, if this system has one on its PATH. */
  static Optional<List<String>> browserCommand(String url, String osName, Map<String, String> env) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.contains("mac")) {
      return onPath("open", env).map(open -> List.of(open, url));
    }
    // Without a display, xdg-open would fall back to a text browser and take the terminal over.
    if (isUnix(osName) && hasDisplay(env)) {
      return onPath("xdg-open", env).map(xdg -> List.of(xdg, url));
    }
    return Optional.empty();
  }

  private static boolean isUnix(String osName) {
    String os = osName.toLowerCase(Locale.ROOT);
    return os.contains("linux") || os.contains("bsd") || os.contains("sunos") || os.contains("nix");
  }

  private static boolean hasDisplay(Map<String, String> env) {
    return !env.getOrDefault("DISPLAY", "").isEmpty()
        || !env.getOrDefault("WAYLAND_DISPLAY", "").isEmpty();
  }

  private static Optional<String> onPath(String program, Map<String, String> env) {
    return Executables.find(program, env).map(Path::toString);
  }

  private static void couldNotOpen(String url, String why) {
    // The full address carries the token: show it on the user's terminal, never in a log file.
    if (System.console() != null) {
      log.warn("Could not open a browser ({}). Open the review page yourself: {}", why, url);
    } else {
      log.warn(
          "Could not open a browser ({}). `companion4j open --print` in the workspace prints the page's address"
              + " with its token; or open {} yourself, with #token= and the token of the discovery file appended",
          why,
          url.substring(0, url.indexOf('#')));
    }
  }

  /**
   * Sets the assets up on the page's first request rather than when the companion starts: Jetty
   * opens the whole jar as a file system to serve them, some 20 ms that most starts never need.
   */
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

  private static final class OnFirstRequest extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final URL base;
    // Guarded by this.
    private transient Assets assets;

    OnFirstRequest(URL base) {
      this.base = base;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp)
        throws ServletException, IOException {
      assets().service(req, resp);
    }

    private synchronized Assets assets() throws ServletException {
      if (assets == null) {
        Assets started;
        try {
          started = new Assets(base);
        } catch (IOException e) {
          throw new ServletException("cannot read the review page from the jar", e);
        }
        started.init(getServletConfig());
        assets = started;
      }
      return assets;
    }

    @Override
    public synchronized void destroy() {
      if (assets != null) {
        assets.destroy();
      }
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
