package dev.companion4j.engine.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reading bounded request bodies and writing small JSON answers, for the routes a host serves on
 * the companion's port. What a body says is checked by the wire module's {@code JsonFields}.
 */
public final class HttpBodies {
  public static final JsonMapper JSON = JsonMapper.shared();

  private HttpBodies() {}

  /** Thrown when a body is larger than allowed. */
  public static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(long limit) {
      super("request body exceeds the limit of " + limit + " bytes");
    }
  }

  /** The request's path below the servlet's, e.g. {@code /diffs}; empty for none. */
  public static String route(HttpServletRequest request) {
    String info = request.getPathInfo();
    return info == null ? "" : info;
  }

  /**
   * Reads the whole body, refusing more than {@code limit} bytes whatever the headers claim. A body
   * at most twice the limit is read to its end and dropped before the refusal, so that its client,
   * still sending, gets the 413 rather than a connection closed under it; a larger one is refused
   * at once.
   */
  public static byte[] read(HttpServletRequest request, int limit) throws IOException {
    long declared = request.getContentLengthLong();
    if (declared > 2L * limit) {
      throw new TooLargeException(limit);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try (InputStream in = request.getInputStream()) {
      long total = 0;
      int n;
      while ((n = in.read(buffer)) != -1) {
        total += n;
        if (total > 2L * limit) {
          break;
        }
        if (total <= limit) {
          out.write(buffer, 0, n);
        }
      }
      if (total > limit || declared > limit) {
        throw new TooLargeException(limit);
      }
    }
    return out.toByteArray();
  }

  /**
   * Reads the whole body before a route answers, as {@link #read}; answers 413 itself when it is
   * too large. Read it first whatever the answer: Jetty closes a connection whose request body was
   * left unread, and a client that reuses that connection finds it dead.
   *
   * @return the body, or null when the request was answered with 413
   */
  public static byte[] readFirst(
      HttpServletRequest request, HttpServletResponse response, int limit) throws IOException {
    try {
      return read(request, limit);
    } catch (TooLargeException e) {
      error(response, 413, e.getMessage());
      return null;
    }
  }

  /** Answers with {@code {"error": message}}. */
  public static void error(HttpServletResponse response, int status, String message)
      throws IOException {
    json(response, status, Map.of("error", message));
  }

  /** Answers with a JSON body. */
  public static void json(HttpServletResponse response, int status, Object body)
      throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    response.setStatus(status);
    response.setContentType("application/json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }
}
