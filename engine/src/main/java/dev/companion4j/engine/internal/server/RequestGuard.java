package dev.companion4j.engine.internal.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The checks every request passes before anything else sees it: a Host naming this companion
 * (against DNS rebinding), no foreign Origin (against pages in the user's browser), and the
 * bearer token. Each refusal says what was wrong; none echoes what the client sent.
 */
public final class RequestGuard extends HttpFilter {
  private static final long serialVersionUID = 1L;
  private static final Set<String> LOCAL_HOST_NAMES = Set.of("127.0.0.1", "localhost", "host.docker.internal");

  private final byte[] token;
  private final IntSupplier port;
  private final Predicate<String> ownOriginAllowedFor;
  private final Predicate<String> openFor;
  private final int maxBodyBytes;

  /**
   * @param token the bearer token
   * @param port the port the server listens on, known once it started
   * @param ownOriginAllowedFor which request paths also accept the companion's own origin (a page
   *     the companion serves); all others refuse every Origin, as the official companions do
   * @param openFor which request paths serve static assets without the token (GET and HEAD only)
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
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String host = request.getHeader("Host");
    if (!isOwnHost(host)) {
      HttpBodies.error(response, 403, "Host header does not name this companion");
      return;
    }
    String origin = request.getHeader("Origin");
    if (origin != null && !(ownOriginAllowedFor.test(request.getRequestURI()) && isOwnOrigin(origin))) {
      HttpBodies.error(response, 403, "requests from browser origins are refused");
      return;
    }
    if (openFor.test(request.getRequestURI())) {
      if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
        HttpBodies.error(response, 405, "static assets answer GET and HEAD only");
        return;
      }
      chain.doFilter(request, response);
      return;
    }
    if (!hasToken(request.getHeader("Authorization"))) {
      response.setHeader("WWW-Authenticate", "Bearer");
      HttpBodies.error(response, 401, "missing or wrong bearer token");
      return;
    }
    if (request.getContentLengthLong() > maxBodyBytes) {
      HttpBodies.error(response, 413, "request body exceeds the limit of " + maxBodyBytes + " bytes");
      return;
    }
    chain.doFilter(request, response);
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
    return LOCAL_HOST_NAMES.contains(name) && host.substring(colon + 1).equals(Integer.toString(port.getAsInt()));
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
