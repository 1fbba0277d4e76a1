package dev.companion4j.engine.internal.server;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * Answers every error the SDK produces with a short JSON-RPC error: its own error bodies are
 * serialized Java exceptions, stack trace and JDK version included. An error status set by the SDK
 * swallows what it writes after; {@link #finish()} then writes the clean answer.
 */
final class CleanErrorResponse extends HttpServletResponseWrapper {
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
    if (!refused()
        || getResponse().isCommitted()
        || ((HttpServletResponse) getResponse()).getStatus() >= 400) {
      return;
    }
    HttpServletResponse response = (HttpServletResponse) getResponse();
    response.resetBuffer();
    switch (refusedStatus) {
      case 404 -> McpMessages.unknownSession(response);
      case 400 -> McpMessages.rpcError(response, 400, -32600, "Invalid Request: bad MCP request");
      case 413 ->
          McpMessages.rpcError(response, 413, -32600, "Invalid Request: request body too large");
      case 503 -> McpMessages.rpcError(response, 503, -32000, "The companion is shutting down");
      default ->
          McpMessages.rpcError(
              response,
              refusedStatus,
              -32603,
              "Internal error: the request could not be processed");
    }
  }
}
