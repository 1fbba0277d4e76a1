package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * What the SDK leaves unchecked in an MCP message, and the JSON-RPC errors sent instead: the SDK
 * would answer a malformed envelope with a serialized Java exception, or not at all.
 */
final class McpMessages {
  private McpMessages() {}

  /** A POST's message as sent, and as read. */
  record Message(byte[] body, JsonNode json) {}

  /**
   * A POST's message, read within {@code maxBodyBytes}, or null when it is refused: too large, not
   * JSON, a batch, not an object, or an envelope the SDK cannot take; the refusal is answered.
   */
  static Message read(HttpServletRequest request, HttpServletResponse response, int maxBodyBytes)
      throws IOException {
    byte[] body;
    try {
      body = HttpBodies.read(request, maxBodyBytes);
    } catch (HttpBodies.TooLargeException e) {
      HttpBodies.error(response, 413, e.getMessage());
      return null;
    }
    JsonNode message;
    try {
      message = HttpBodies.JSON.readTree(body);
    } catch (JacksonException e) {
      rpcError(response, 400, -32700, "Parse error: the body is not valid JSON");
      return null;
    }
    if (message != null && message.isArray()) {
      rpcError(response, 400, -32600, "Invalid Request: JSON-RPC batches are not supported");
      return null;
    }
    if (message == null || !message.isObject()) {
      rpcError(response, 400, -32600, "Invalid Request: expected a JSON-RPC message object");
      return null;
    }
    String invalid = invalidEnvelope(message, request.getHeader("Accept"));
    if (invalid != null) {
      rpcError(response, 400, -32600, "Invalid Request: " + invalid);
      return null;
    }
    return new Message(body, message);
  }

  /**
   * What is wrong with a message's envelope, or null. The SDK would answer these with a serialized
   * Java exception; the CLIs never send them.
   */
  static String invalidEnvelope(JsonNode message, String accept) {
    if (accept == null
        || !accept.contains("application/json")
        || !accept.contains("text/event-stream")) {
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
  static String invalidToolCall(JsonNode message) {
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

  static void rpcError(HttpServletResponse response, int status, int code, String message)
      throws IOException {
    rpcError(response, status, null, code, message);
  }

  static void rpcError(
      HttpServletResponse response, int status, JsonNode id, int code, String message)
      throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("jsonrpc", "2.0");
    body.put("id", id);
    body.put("error", Map.of("code", code, "message", message));
    HttpBodies.json(response, status, body);
  }

  /** The answer to a request of a session that ended or never was. */
  static void unknownSession(HttpServletResponse response) throws IOException {
    rpcError(response, 404, -32001, "Unknown or expired MCP session; initialize a new one");
  }
}
