package dev.companion4j.engine.internal.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Sits in front of the SDK's MCP servlet and adds what the SDK lacks: validated, bounded bodies
 * with JSON-RPC errors instead of stack traces; the session events the engine needs (handshake,
 * stream opened and closed, DELETE); a session cap; and SSE responses to POSTs without {@code
 * id:} lines, because Gemini CLI's client treats an id on a finished POST stream as resumable and
 * reconnects its listening stream in a loop.
 */
public final class McpTransportFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;
  private static final String SESSION_HEADER = "mcp-session-id";

  private final SessionObserver sessions;
  private final int maxBodyBytes;

  public McpTransportFilter(SessionObserver sessions, int maxBodyBytes) {
    this.sessions = sessions;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String sessionId = request.getHeader(SESSION_HEADER);
    HttpServletResponse cleanErrors = new CleanErrorResponse(response);
    switch (request.getMethod()) {
      case "POST" -> post(request, cleanErrors, chain, sessionId);
      case "GET" -> get(request, cleanErrors, chain, sessionId);
      case "DELETE" -> {
        chain.doFilter(request, cleanErrors);
        if (sessionId != null && response.getStatus() < 300) {
          sessions.deleted(sessionId);
        }
      }
      default -> HttpBodies.error(response, 405, "method not allowed; MCP uses GET, POST and DELETE");
    }
  }

  private void post(HttpServletRequest request, HttpServletResponse response, FilterChain chain, String sessionId)
      throws IOException, ServletException {
    byte[] body;
    try {
      body = HttpBodies.read(request, maxBodyBytes);
    } catch (HttpBodies.TooLargeException e) {
      HttpBodies.error(response, 413, e.getMessage());
      return;
    }
    JsonNode message;
    try {
      message = HttpBodies.JSON.readTree(body);
    } catch (JacksonException e) {
      rpcError(response, 400, -32700, "Parse error: the body is not valid JSON");
      return;
    }
    if (message == null || !(message.isObject() || message.isArray())) {
      rpcError(response, 400, -32600, "Invalid Request: expected a JSON-RPC message object");
      return;
    }
    JsonNode initialize = findInitialize(message);
    if (initialize != null && !sessions.acceptsNewSession()) {
      rpcError(response, 503, -32000, "Too many connected clients; close another CLI session first");
      return;
    }
    if (sessionId != null) {
      sessions.active(sessionId);
    }
    chain.doFilter(new BufferedBodyRequest(request, body), new NoEventIdResponse(response));
    if (initialize != null) {
      String created = response.getHeader(SESSION_HEADER);
      if (created != null) {
        JsonNode info = initialize.path("params").path("clientInfo");
        sessions.initialized(created, info.path("name").asString("unknown"), info.path("version").asString(""));
      }
    }
  }

  private void get(HttpServletRequest request, HttpServletResponse response, FilterChain chain, String sessionId)
      throws IOException, ServletException {
    chain.doFilter(request, response);
    if (sessionId == null || !request.isAsyncStarted() || response.getStatus() != 200) {
      return;
    }
    AsyncEnd.onEnd(request.getAsyncContext(), () -> sessions.streamClosed(sessionId));
    sessions.streamOpened(sessionId);
  }

  private static JsonNode findInitialize(JsonNode message) {
    if (message.isArray()) {
      for (JsonNode m : message) {
        if ("initialize".equals(m.path("method").asString(null))) {
          return m;
        }
      }
      return null;
    }
    return "initialize".equals(message.path("method").asString(null)) ? message : null;
  }

  private static void rpcError(HttpServletResponse response, int status, int code, String message)
      throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("jsonrpc", "2.0");
    body.put("id", null);
    body.put("error", Map.of("code", code, "message", message));
    HttpBodies.json(response, status, body);
  }

  /** Replays a body already read, so the SDK reads it as if from the wire. */
  private static final class BufferedBodyRequest extends HttpServletRequestWrapper {
    private final byte[] body;

    BufferedBodyRequest(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new IllegalStateException("the body was already read");
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }

  /** Answers the SDK's bare errors (whose default pages may carry internals) with short JSON. */
  private static final class CleanErrorResponse extends HttpServletResponseWrapper {
    CleanErrorResponse(HttpServletResponse response) {
      super(response);
    }

    @Override
    public void sendError(int status, String message) throws IOException {
      sendError(status);
    }

    @Override
    public void sendError(int status) throws IOException {
      String message = switch (status) {
        case 404 -> "unknown or expired MCP session; initialize a new one";
        case 400 -> "bad MCP request";
        case 413 -> "request body too large";
        case 503 -> "the companion is shutting down";
        default -> "request refused (" + status + ")";
      };
      HttpBodies.error((HttpServletResponse) getResponse(), status, message);
    }
  }

  /** Drops SSE {@code id:} lines from POST responses (see the class comment). */
  private static final class NoEventIdResponse extends HttpServletResponseWrapper {
    private PrintWriter writer;

    NoEventIdResponse(HttpServletResponse response) {
      super(response);
    }

    @Override
    public synchronized PrintWriter getWriter() throws IOException {
      if (writer == null) {
        writer = new PrintWriter(new EventIdStrippingWriter(super.getWriter()));
      }
      return writer;
    }
  }

  /** A streaming filter that removes every line starting with {@code id:}. */
  static final class EventIdStrippingWriter extends FilterWriter {
    private final StringBuilder lineStart = new StringBuilder(3);
    private boolean atLineStart = true;
    private boolean dropping;

    EventIdStrippingWriter(Writer out) {
      super(out);
    }

    @Override
    public void write(int c) throws IOException {
      char ch = (char) c;
      if (atLineStart) {
        lineStart.append(ch);
        if (ch == '\n' || ch == '\r') {
          flushLineStart();
          return;
        }
        if ("id:".startsWith(lineStart.toString())) {
          if (lineStart.length() == 3) {
            dropping = true;
            atLineStart = false;
            lineStart.setLength(0);
          }
          return;
        }
        atLineStart = false;
        out.write(lineStart.toString());
        lineStart.setLength(0);
        return;
      }
      if (!dropping) {
        out.write(ch);
      }
      if (ch == '\n') {
        atLineStart = true;
        dropping = false;
      }
    }

    private void flushLineStart() throws IOException {
      out.write(lineStart.toString());
      lineStart.setLength(0);
      atLineStart = lineStart.isEmpty();
    }

    @Override
    public void write(char[] cbuf, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(cbuf[i]);
      }
    }

    @Override
    public void write(String str, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(str.charAt(i));
      }
    }
  }
}
