package dev.companion4j.cli.bridge;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON-RPC 2.0 messages as MCP carries them, one object each: what kind a message is, and errors.
 */
public final class JsonRpc {
  /**
   * Numbers pass through as written (no float rounding, no trailing zeros dropped), and a line is
   * one value: {@code {} x} is not JSON.
   */
  public static final JsonMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonNodeFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int INTERNAL_ERROR = -32603;

  private JsonRpc() {}

  enum Kind {
    REQUEST,
    NOTIFICATION,
    RESPONSE
  }

  /** A message that is valid JSON but no JSON-RPC message; {@link #id} is what to answer with. */
  static final class InvalidMessage extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient JsonNode id;

    InvalidMessage(JsonNode id, String reason) {
      super(reason);
      this.id = id;
    }

    JsonNode id() {
      return id;
    }
  }

  /**
   * What {@code message} is.
   *
   * @throws InvalidMessage when it is none of the three; its id is the message's own when that is a
   *     valid id, else null
   */
  static Kind kind(JsonNode message) throws InvalidMessage {
    if (message == null || !message.isObject()) {
      throw new InvalidMessage(
          null,
          message != null && message.isArray()
              ? "JSON-RPC batches are not supported"
              : "expected a JSON-RPC message object");
    }
    JsonNode id = message.get("id");
    boolean validId =
        id != null && (id.isString() || (id.isIntegralNumber() && id.canConvertToLong()));
    JsonNode answerId = validId ? id : null;
    if (!"2.0".equals(message.path("jsonrpc").asString(null))) {
      throw new InvalidMessage(answerId, "jsonrpc must be \"2.0\"");
    }
    if (id != null && !validId && !id.isNull()) {
      throw new InvalidMessage(null, "id must be a string or an integer");
    }
    JsonNode method = message.get("method");
    if (method != null) {
      if (!method.isString()) {
        throw new InvalidMessage(answerId, "method must be a string");
      }
      if (id == null) {
        return Kind.NOTIFICATION;
      }
      if (!validId) {
        throw new InvalidMessage(null, "a request's id must be a string or an integer");
      }
      return Kind.REQUEST;
    }
    if (id == null || !(message.has("result") || message.has("error"))) {
      throw new InvalidMessage(
          answerId, "a message needs a method, or an id with a result or an error");
    }
    return Kind.RESPONSE;
  }

  /** How requests are told apart: {@code 1} and {@code "1"} are different ids. */
  static String key(JsonNode id) {
    return id.toString();
  }

  /** A JSON-RPC error answer; {@code id} null for a message whose id is unknown. */
  static ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode error = JSON.createObjectNode();
    error.put("jsonrpc", "2.0");
    if (id == null) {
      error.putNull("id");
    } else {
      error.set("id", id);
    }
    error.putObject("error").put("code", code).put("message", message);
    return error;
  }

  /** A short name for a message in a diagnostic line: its method, or the request it answers. */
  static String describe(JsonNode message) {
    String method = message.path("method").asString(null);
    return method != null ? method : "the answer to request " + message.path("id");
  }
}
