package dev.companion4j.engine.internal.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error answers as short JSON in words of our own, without internals: those of the
 * context (unknown path) and those of the server, for requests refused before any route (a bad
 * request line, URI, {@code Host} or header).
 */
final class JsonErrorHandler extends ErrorHandler {
  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    String message =
        switch (status) {
          case 400 ->
              "malformed request: check the request line, the path's encoding, the Host and the headers";
          case 404 -> "no such route";
          case 405 -> "method not allowed";
          case 413 -> "request too large";
          case 414 -> "request URI too long";
          case 431 -> "request headers too large";
          case 500 -> "the companion failed to answer";
          case 505 -> "HTTP version not supported; use HTTP/1.1";
          default -> "request refused (" + status + ")";
        };
    byte[] body = ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
