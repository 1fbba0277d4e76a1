package dev.companion4j.daemon.internal;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The one JSON mapper of the module, and null-safe readers for loosely typed daemon payloads. */
public final class Json {
  public static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Json() {}

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** The field's string value, or {@code null} when it is absent or not a string. */
  public static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isString() ? value.stringValue() : null;
  }

  /** The field as text whether the daemon sent a string or a number, or {@code null}. */
  public static String scalar(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || value.isNull() || value.isMissingNode()) {
      return null;
    }
    if (value.isString()) {
      return value.stringValue();
    }
    return value.isValueNode() ? value.toString() : null;
  }

  /** The field's integral value, or {@code fallback}. */
  public static long number(JsonNode node, String field, long fallback) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isIntegralNumber() ? value.longValue() : fallback;
  }

  /** The field's integral value, or {@code null}. */
  public static Integer integer(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.canConvertToInt() && value.isIntegralNumber()
        ? value.intValue()
        : null;
  }

  public static boolean bool(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isBoolean() && value.booleanValue();
  }

  /** The string elements of an array field (other elements are skipped). */
  public static List<String> strings(JsonNode node, String field) {
    List<String> out = new ArrayList<>();
    JsonNode array = node == null ? null : node.get(field);
    if (array != null && array.isArray()) {
      for (JsonNode element : array) {
        if (element.isString()) {
          out.add(element.stringValue());
        }
      }
    }
    return out;
  }
}
