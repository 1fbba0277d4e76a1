package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.session.PeerNaming;
import dev.companion4j.engine.internal.session.SessionRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
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

  private final SessionRegistry sessions;
  private final int maxBodyBytes;
  private final transient PeerNaming peers = new PeerNaming();

  public McpTransportFilter(SessionRegistry sessions, int maxBodyBytes) {
    this.sessions = sessions;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void destroy() {
    peers.close();
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String sessionId = request.getHeader(SESSION_HEADER);
    CleanErrorResponse cleanErrors = new CleanErrorResponse(response);
    switch (request.getMethod()) {
      case "POST" -> post(request, response, cleanErrors, chain, sessionId);
      case "GET" -> get(request, response, sessionId);
      case "DELETE" -> {
        if (sessionId == null) {
          McpMessages.rpcError(
              response, 400, -32600, "Invalid Request: the mcp-session-id header is required");
          return;
        }
        if (!sessions.isLive(sessionId)) {
          McpMessages.unknownSession(response);
          return;
        }
        chain.doFilter(request, cleanErrors);
        sessions.close(sessionId, SessionRegistry.Departure.GOODBYE);
      }
      default ->
          HttpBodies.error(response, 405, "method not allowed; MCP uses GET, POST and DELETE");
    }
    cleanErrors.finish();
  }

  /** Refusals of its own go to {@code response}; what the SDK answers goes through {@code sdk}. */
  private void post(
      HttpServletRequest request,
      HttpServletResponse response,
      HttpServletResponse sdk,
      FilterChain chain,
      String sessionId)
      throws IOException, ServletException {
    McpMessages.Message read = McpMessages.read(request, response, maxBodyBytes);
    if (read == null) {
      return;
    }
    JsonNode message = read.json();
    JsonNode initialize =
        "initialize".equals(message.path("method").asString(null)) ? message : null;
    if (initialize == null && sessionId == null) {
      McpMessages.rpcError(
          response,
          400,
          -32600,
          "Invalid Request: the mcp-session-id header is required after initialize");
      return;
    }
    if (initialize != null && sessions.isFull()) {
      // Checked again, atomically, when the SDK creates the session; this spares it a logged error.
      McpMessages.rpcError(
          response, 503, -32000, "Too many connected clients; close another CLI session first");
      return;
    }
    if (sessionId != null && !sessions.touch(sessionId)) {
      McpMessages.unknownSession(response);
      return;
    }
    String badCall = McpMessages.invalidToolCall(message);
    if (badCall != null) {
      // A JSON-RPC error for the request, not a transport failure: the caller matches it by id.
      McpMessages.rpcError(response, 200, message.get("id"), -32602, "Invalid params: " + badCall);
      return;
    }
    if (initialize != null) {
      sessions.initializingFrom(peers.identify(request.getLocalPort(), request.getRemotePort()));
    }
    try {
      chain.doFilter(new BufferedBodyRequest(request, read.body()), new NoEventIdResponse(sdk));
    } finally {
      sessions.initializingFrom(null);
    }
    if (initialize != null && sessions.refusedForCapacity()) {
      response.resetBuffer();
      McpMessages.rpcError(
          response, 503, -32000, "Too many connected clients; close another CLI session first");
    }
  }

  private void get(HttpServletRequest request, HttpServletResponse response, String sessionId)
      throws IOException, ServletException {
    String accept = request.getHeader("Accept");
    if (accept == null || !accept.contains("text/event-stream")) {
      McpMessages.rpcError(
          response,
          406,
          -32600,
          "Invalid Request: the notification stream needs Accept: text/event-stream");
      return;
    }
    if (sessionId == null) {
      McpMessages.rpcError(
          response, 400, -32600, "Invalid Request: the mcp-session-id header is required");
      return;
    }
    if (!sessions.openStream(sessionId, request, response)) {
      McpMessages.unknownSession(response);
    }
  }
}
