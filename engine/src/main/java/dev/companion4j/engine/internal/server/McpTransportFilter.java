package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.ClientProcess;
import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.session.PeerLookups;
import dev.companion4j.engine.internal.session.PeerProcesses;
import dev.companion4j.engine.internal.session.SessionRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Sits in front of the SDK's MCP servlet and adds what the SDK lacks: validated, bounded bodies
 * with JSON-RPC errors instead of stack traces; requests of ended sessions refused; notification
 * streams ({@code GET}) served by the {@link SessionRegistry} rather than the SDK, so that a CLI
 * that stops reading stalls nobody; and SSE responses to POSTs without {@code id:} lines, because
 * Gemini CLI's client treats an id on a finished POST stream as resumable and reconnects its
 * listening stream in a loop.
 */
public final class McpTransportFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;
  private static final String SESSION_HEADER = "mcp-session-id";

  /** Past this, a CLI is served unnamed rather than kept waiting. */
  private static final long LOOKUP_BOUND_MILLIS = 2_000;

  private final SessionRegistry sessions;
  private final int maxBodyBytes;
  /** Its thread exists only while CLIs connect. */
  private final ThreadPoolExecutor lookupThread = new ThreadPoolExecutor(
      0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "companion4j-peers");
        t.setDaemon(true);
        return t;
      });
  private final PeerLookups peers = new PeerLookups(PeerProcesses.system(), lookupThread);

  public McpTransportFilter(SessionRegistry sessions, int maxBodyBytes) {
    this.sessions = sessions;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void destroy() {
    lookupThread.shutdownNow();
  }

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String sessionId = request.getHeader(SESSION_HEADER);
    CleanErrorResponse cleanErrors = new CleanErrorResponse(response);
    switch (request.getMethod()) {
      case "POST" -> post(request, response, cleanErrors, chain, sessionId);
      case "GET" -> get(request, response, sessionId);
      case "DELETE" -> {
        if (sessionId == null) {
          rpcError(response, 400, -32600, "Invalid Request: the mcp-session-id header is required");
          return;
        }
        if (!sessions.isLive(sessionId)) {
          unknownSession(response);
          return;
        }
        chain.doFilter(request, cleanErrors);
        sessions.close(sessionId, SessionRegistry.Departure.GOODBYE);
      }
      default -> HttpBodies.error(response, 405, "method not allowed; MCP uses GET, POST and DELETE");
    }
    cleanErrors.finish();
  }

  /** Refusals of its own go to {@code response}; what the SDK answers goes through {@code sdk}. */
  private void post(
      HttpServletRequest request, HttpServletResponse response, HttpServletResponse sdk, FilterChain chain, String sessionId)
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
    if (message != null && message.isArray()) {
      rpcError(response, 400, -32600, "Invalid Request: JSON-RPC batches are not supported");
      return;
    }
    if (message == null || !message.isObject()) {
      rpcError(response, 400, -32600, "Invalid Request: expected a JSON-RPC message object");
      return;
    }
    String invalid = invalidEnvelope(message, request.getHeader("Accept"));
    if (invalid != null) {
      rpcError(response, 400, -32600, "Invalid Request: " + invalid);
      return;
    }
    JsonNode initialize = "initialize".equals(message.path("method").asString(null)) ? message : null;
    if (initialize == null && sessionId == null) {
      rpcError(response, 400, -32600, "Invalid Request: the mcp-session-id header is required after initialize");
      return;
    }
    if (initialize != null && sessions.isFull()) {
      // Checked again, atomically, when the SDK creates the session; this spares it a logged error.
      rpcError(response, 503, -32000, "Too many connected clients; close another CLI session first");
      return;
    }
    if (sessionId != null && !sessions.touch(sessionId)) {
      unknownSession(response);
      return;
    }
    String badCall = invalidToolCall(message);
    if (badCall != null) {
      // A JSON-RPC error for the request, not a transport failure: the caller matches it by id.
      rpcError(response, 200, message.get("id"), -32602, "Invalid params: " + badCall);
      return;
    }
    if (initialize != null) {
      sessions.initializingFrom(peer(request));
    }
    try {
      chain.doFilter(new BufferedBodyRequest(request, body), new NoEventIdResponse(sdk));
    } finally {
      sessions.initializingFrom(null);
    }
    if (initialize != null && sessions.refusedForCapacity()) {
      response.resetBuffer();
      rpcError(response, 503, -32000, "Too many connected clients; close another CLI session first");
    }
  }

  /**
   * The process behind the connection of an {@code initialize}; handshakes arriving together share
   * one look through {@code /proc}.
   */
  private ClientProcess peer(HttpServletRequest request) {
    try {
      return peers.identify(request.getLocalPort(), request.getRemotePort()).get(LOOKUP_BOUND_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ClientProcess.UNKNOWN;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return ClientProcess.UNKNOWN;
    }
  }

  private void get(HttpServletRequest request, HttpServletResponse response, String sessionId)
      throws IOException, ServletException {
    String accept = request.getHeader("Accept");
    if (accept == null || !accept.contains("text/event-stream")) {
      rpcError(response, 406, -32600, "Invalid Request: the notification stream needs Accept: text/event-stream");
      return;
    }
    if (sessionId == null) {
      rpcError(response, 400, -32600, "Invalid Request: the mcp-session-id header is required");
      return;
    }
    if (!sessions.openStream(sessionId, request, response)) {
      unknownSession(response);
    }
  }

  private static void unknownSession(HttpServletResponse response) throws IOException {
    rpcError(response, 404, -32001, "Unknown or expired MCP session; initialize a new one");
  }

  /**
   * What is wrong with a message's envelope, or null. The SDK would answer these with a serialized
   * Java exception; the CLIs never send them.
   */
  private static String invalidEnvelope(JsonNode message, String accept) {
    if (accept == null || !accept.contains("application/json") || !accept.contains("text/event-stream")) {
      return "Accept must list application/json and text/event-stream";
    }
    if (!"2.0".equals(message.path("jsonrpc").asString(null))) {
      return "jsonrpc must be \"2.0\"";
    }
    JsonNode id = message.get("id");
    if (id != null && !id.isString() && !(id.isIntegralNumber() && id.canConvertToLong())) {
      return "id must be a string or an integer";
    }
    JsonNode method = message.get("method");
    if (method != null && !method.isString()) {
      return "method must be a string";
    }
    if (method == null && id == null) {
      return "a message needs a method or an id";
    }
    return null;
  }

  /**
   * What is wrong with a {@code tools/call} request's params, or null. The SDK cannot read
   * arguments or {@code _meta} that are not an object and would answer nothing at all.
   */
  private static String invalidToolCall(JsonNode message) {
    if (!"tools/call".equals(message.path("method").asString(null)) || message.get("id") == null) {
      return null;
    }
    JsonNode params = message.get("params");
    if (params == null || !params.isObject()) {
      return "tools/call needs params {\"name\": the tool, \"arguments\": {…}}";
    }
    if (!params.path("name").isString()) {
      return "params.name must be the tool's name, a string";
    }
    if (!objectOrAbsent(params.get("arguments"))) {
      return "params.arguments must be an object of named arguments, such as {\"filePath\": \"/abs/file\"}";
    }
    if (!objectOrAbsent(params.get("_meta"))) {
      return "params._meta must be an object";
    }
    return null;
  }

  private static boolean objectOrAbsent(JsonNode node) {
    return node == null || node.isNull() || node.isObject();
  }

  private static void rpcError(HttpServletResponse response, int status, int code, String message)
      throws IOException {
    rpcError(response, status, null, code, message);
  }

  private static void rpcError(HttpServletResponse response, int status, JsonNode id, int code, String message)
      throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("jsonrpc", "2.0");
    body.put("id", id);
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

  /**
   * Answers every error the SDK produces with a short JSON-RPC error: its own error bodies are
   * serialized Java exceptions, stack trace and JDK version included. An error status set by the
   * SDK swallows what it writes after; {@link #finish()} then writes the clean answer.
   */
  private static final class CleanErrorResponse extends HttpServletResponseWrapper {
    private static final PrintWriter DISCARD = new PrintWriter(Writer.nullWriter());
    private int refusedStatus;

    CleanErrorResponse(HttpServletResponse response) {
      super(response);
    }

    boolean refused() {
      return refusedStatus != 0;
    }

    @Override
    public void setStatus(int status) {
      if (status >= 400) {
        refusedStatus = status;
      } else {
        super.setStatus(status);
      }
    }

    @Override
    public void sendError(int status, String message) {
      refusedStatus = status;
    }

    @Override
    public void sendError(int status) {
      refusedStatus = status;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      return refused() ? DISCARD : super.getWriter();
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (refused()) {
        throw new IOException("the answer is an error, written by the filter");
      }
      return super.getOutputStream();
    }

    void finish() throws IOException {
      if (!refused() || getResponse().isCommitted() || ((HttpServletResponse) getResponse()).getStatus() >= 400) {
        return;
      }
      HttpServletResponse response = (HttpServletResponse) getResponse();
      response.resetBuffer();
      switch (refusedStatus) {
        case 404 -> rpcError(response, 404, -32001, "Unknown or expired MCP session; initialize a new one");
        case 400 -> rpcError(response, 400, -32600, "Invalid Request: bad MCP request");
        case 413 -> rpcError(response, 413, -32600, "Invalid Request: request body too large");
        case 503 -> rpcError(response, 503, -32000, "The companion is shutting down");
        default -> rpcError(response, refusedStatus, -32603, "Internal error: the request could not be processed");
      }
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
