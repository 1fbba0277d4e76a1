package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Sits in front of a host's stateless MCP server (the SDK's servlet without sessions) as {@link
 * McpTransportFilter} sits in front of {@code /mcp}: a message is checked before the SDK reads it,
 * and what the SDK refuses is answered with a short JSON-RPC error, never its serialized Java
 * exception. Only POST: without sessions there is no stream to open or session to end.
 */
final class StatelessMcpFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;

  private final int maxBodyBytes;

  StatelessMcpFilter(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!request.getMethod().equals("POST")) {
      response.setHeader("Allow", "POST");
      HttpBodies.error(response, 405, "method not allowed; this MCP server has no sessions: POST");
      return;
    }
    McpMessages.Message read = McpMessages.read(request, response, maxBodyBytes);
    if (read == null) {
      return;
    }
    String badCall = McpMessages.invalidToolCall(read.json());
    if (badCall != null) {
      // A JSON-RPC error for the request, not a transport failure: the caller matches it by id.
      McpMessages.rpcError(
          response, 200, read.json().get("id"), -32602, "Invalid params: " + badCall);
      return;
    }
    CleanErrorResponse cleanErrors = new CleanErrorResponse(response);
    chain.doFilter(new BufferedBodyRequest(request, read.body()), cleanErrors);
    cleanErrors.finish();
  }
}
