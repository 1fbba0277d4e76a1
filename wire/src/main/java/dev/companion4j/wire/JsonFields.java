package dev.companion4j.wire;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.Predicate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one validation of JSON request bodies: each reader binds a body to its own records through
 * these, so a field is refused in the same words wherever it is sent. Every message repeats at most
 * {@value #SHOWN_CHARS} characters of what was sent, since a request's text may be megabytes.
 */
public final class JsonFields {
  private static final JsonMapper JSON = JsonMapper.shared();
  private static final int SHOWN_CHARS = 200;

  private JsonFields() {}

  /** The body as JSON, or null when it is empty. */
  public static JsonNode parse(byte[] body) throws BadRequest {
    if (body.length == 0) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (JacksonException e) {
      throw new BadRequest("the body is not valid JSON");
    }
  }

  /** {@code body} itself, if it is a JSON object. */
  public static JsonNode object(JsonNode body) throws BadRequest {
    if (body == null || !body.isObject()) {
      throw new BadRequest("expected a JSON object");
    }
    return body;
  }

  public static String string(JsonNode body, String field) throws BadRequest {
    return required(body, field, JsonNode::isString, " is required and must be a string")
        .asString();
  }

  /** A string that is not blank. */
  public static String text(JsonNode body, String field) throws BadRequest {
    String value = string(body, field);
    if (value.isBlank()) {
      throw new BadRequest(field + " must not be empty");
    }
    return value;
  }

  /** A string, or null when the field is absent or null. */
  public static String optionalString(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw new BadRequest(field + " must be a string");
    }
    return value.asString();
  }

  public static boolean bool(JsonNode body, String field) throws BadRequest {
    return required(body, field, JsonNode::isBoolean, " must be true or false").asBoolean();
  }

  /**
   * A 1-based position: a whole number from 1 that fits an int. Anything else (absent, a string, a
   * fraction, beyond 32 bits however many digits) is refused.
   */
  public static int position(JsonNode body, String field) throws BadRequest {
    return required(
            body,
            field,
            v -> v.isIntegralNumber() && v.canConvertToInt() && v.intValue() >= 1,
            " must be a whole number from 1 (positions are 1-based)")
        .intValue();
  }

  /** A 1-based position, or 0 for none when the field is absent or null. */
  public static int optionalPosition(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.get(field);
    return value == null || value.isNull() ? 0 : position(body, field);
  }

  /**
   * The one check that a path given on the wire is absolute; whether it may be used (inside a root,
   * on disk) is each reader's own question.
   *
   * @param what how the message names it, e.g. the field
   */
  public static Path absolutePath(String what, String text) throws BadRequest {
    Path path;
    try {
      path = Path.of(text);
    } catch (InvalidPathException e) {
      throw new BadRequest(what + " is not a valid path: " + shown(text));
    }
    if (!path.isAbsolute()) {
      throw new BadRequest(what + " must be absolute: " + shown(text));
    }
    return path;
  }

  /**
   * The field's value if present and {@code valid}; else refused with the field's name and {@code
   * refusal}.
   */
  private static JsonNode required(
      JsonNode body, String field, Predicate<JsonNode> valid, String refusal) throws BadRequest {
    JsonNode value = body.get(field);
    if (value == null || !valid.test(value)) {
      throw new BadRequest(field + refusal);
    }
    return value;
  }

  /** {@code text} as a message repeats it. */
  public static String shown(String text) {
    return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "…";
  }
}
