package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The checks every request passes before anything else sees it: a method the companion serves, a
 * path without dot segments or encoded separators, a Host naming this companion (against DNS
 * rebinding), no foreign Origin (against pages in the user's browser), and the bearer token. Each
 * refusal says what was wrong; none echoes what the client sent.
 *
 * <p>Which routes are public is decided on the path the server routes on, never on the raw request
 * line: {@code /review/../editor/diffs} is refused outright, and would otherwise be routed to
 * {@code /editor/diffs}.
 */
public final class RequestGuard extends HttpFilter {
  private static final long serialVersionUID = 1L;
  private static final Set<String> LOCAL_HOST_NAMES =
      Set.of("127.0.0.1", "localhost", "host.docker.internal");
  private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "DELETE");

  /**
   * What the guard looks at in a request; the servlet adapter fills it, tests build it directly.
   */
  /** The largest declared body of a refused request whose connection is closed with its answer. */
  private static final long CLOSE_AFTER_REFUSAL_BYTES = 64 * 1024;

  public record Inbound(
      String method,
      String rawPath,
      String routedPath,
      String host,
      String origin,
      String authorization,
      long contentLength) {}

  /** The guard's answer: pass the request on, or refuse it with a status and a message. */
  public sealed interface Decision {
    record Pass() implements Decision {}

    /**
     * @param challenge whether to ask for a bearer token ({@code WWW-Authenticate})
     */
    record Refuse(int status, String message, boolean challenge) implements Decision {}
  }

  private static final Decision PASS = new Decision.Pass();

  private final byte[] token;
  private final IntSupplier port;
  private final Predicate<String> ownOriginAllowedFor;
  private final Predicate<String> openFor;
  private final int maxBodyBytes;

  /**
   * @param token the bearer token
   * @param port the port the server listens on, known once it started
   * @param ownOriginAllowedFor which routed paths also accept the companion's own origin (a page
   *     the companion serves); all others refuse every Origin, as the official companions do
   * @param openFor which routed paths serve static assets without the token (GET and HEAD only)
   * @param maxBodyBytes the largest body accepted
   */
  public RequestGuard(
      String token,
      IntSupplier port,
      Predicate<String> ownOriginAllowedFor,
      Predicate<String> openFor,
      int maxBodyBytes) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.port = port;
    this.ownOriginAllowedFor = ownOriginAllowedFor;
    this.openFor = openFor;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String pathInfo = request.getPathInfo();
    Inbound inbound =
        new Inbound(
            request.getMethod(),
            request.getRequestURI(),
            request.getServletPath() + (pathInfo == null ? "" : pathInfo),
            request.getHeader("Host"),
            request.getHeader("Origin"),
            request.getHeader("Authorization"),
            request.getContentLengthLong());
    if (decide(inbound) instanceof Decision.Refuse refuse) {
      if (refuse.challenge()) {
        response.setHeader("WWW-Authenticate", "Bearer");
      }
      if (refuse.status() == 405) {
        response.setHeader("Allow", String.join(", ", METHODS));
      }
      // The refused body stays unread, and Jetty closes a connection whose body it could not
      // read by the answer's end: a client that reused it would race that close. A small body
      // (or none) is better told so; a large one is left to Jetty, which drains what has arrived
      // before it closes, where closing at once would reset the answer the client still reads.
      // That is not enough for a CLI still uploading a body too large: the one holding the token
      // gets a body up to twice the limit read, as HttpBodies does, before the 413.
      if (request.getHeader("Transfer-Encoding") == null
          && inbound.contentLength() <= CLOSE_AFTER_REFUSAL_BYTES) {
        response.setHeader("Connection", "close");
      }
      if (refuse.status() == 413 && inbound.contentLength() <= 2L * maxBodyBytes) {
        discard(request, 2L * maxBodyBytes);
      }
      HttpBodies.error(response, refuse.status(), refuse.message());
      return;
    }
    chain.doFilter(request, response);
  }

  private static void discard(HttpServletRequest request, long max) throws IOException {
    byte[] buffer = new byte[8192];
    try (var in = request.getInputStream()) {
      long total = 0;
      int n;
      while (total <= max && (n = in.read(buffer)) != -1) {
        total += n;
      }
    }
  }

  /** The whole decision, free of any server: the same request always gets the same answer. */
  public Decision decide(Inbound r) {
    if (!METHODS.contains(r.method())) {
      return new Decision.Refuse(
          405, "method not allowed; the companion serves GET, HEAD, POST and DELETE", false);
    }
    if (!isCanonical(r.rawPath()) || !r.rawPath().equals(r.routedPath())) {
      return new Decision.Refuse(
          400,
          "request paths with dot segments, encoded separators or path parameters are refused",
          false);
    }
    if (!isOwnHost(r.host())) {
      return new Decision.Refuse(403, "Host header does not name this companion", false);
    }
    if (r.origin() != null
        && !(ownOriginAllowedFor.test(r.routedPath()) && isOwnOrigin(r.origin()))) {
      return new Decision.Refuse(403, "requests from browser origins are refused", false);
    }
    if (openFor.test(r.routedPath())) {
      return r.method().equals("GET") || r.method().equals("HEAD")
          ? PASS
          : new Decision.Refuse(405, "static assets answer GET and HEAD only", false);
    }
    if (!hasToken(r.authorization())) {
      return new Decision.Refuse(401, "missing or wrong bearer token", true);
    }
    if (r.contentLength() > maxBodyBytes) {
      return new Decision.Refuse(
          413, "request body exceeds the limit of " + maxBodyBytes + " bytes", false);
    }
    return PASS;
  }

  /**
   * Whether a raw request path is already in the form the server routes on: no {@code .} or {@code
   * ..} segment, no empty segment, no encoded dot, slash or backslash, no backslash and no {@code
   * ;} parameters. The companion's own routes never need any of these.
   */
  static boolean isCanonical(String rawPath) {
    if (rawPath == null || !rawPath.startsWith("/")) {
      return false;
    }
    String lower = rawPath.toLowerCase(Locale.ROOT);
    if (lower.contains("%2e")
        || lower.contains("%2f")
        || lower.contains("%5c")
        || lower.contains("%25")
        || lower.contains("\\")
        || lower.contains(";")
        || lower.contains("//")) {
      return false;
    }
    for (String segment : rawPath.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return true;
  }

  private boolean isOwnHost(String host) {
    if (host == null) {
      return false;
    }
    int colon = host.lastIndexOf(':');
    if (colon < 0) {
      return false;
    }
    String name = host.substring(0, colon);
    return LOCAL_HOST_NAMES.contains(name)
        && host.substring(colon + 1).equals(Integer.toString(port.getAsInt()));
  }

  private boolean isOwnOrigin(String origin) {
    String p = Integer.toString(port.getAsInt());
    return origin.equals("http://127.0.0.1:" + p) || origin.equals("http://localhost:" + p);
  }

  private boolean hasToken(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] offered = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(offered, token);
  }
}
