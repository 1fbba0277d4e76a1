package dev.companion4j.netbeans;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.json.simple.JSONValue;
import org.json.simple.parser.JSONParser;
import org.json.simple.parser.ParseException;

/**
 * Read-only access to a parsed JSON value. NbModuleSuite shows the tests only module jars, so the
 * parsing is NetBeans' own json-simple library module; this adds null-safe navigation.
 */
final class Json implements Iterable<Json> {
  static final Json MISSING = new Json(null);

  private final Object value;

  private Json(Object value) {
    this.value = value;
  }

  static Json parse(String text) {
    try {
      return new Json(new JSONParser().parse(text));
    } catch (ParseException e) {
      throw new IllegalArgumentException("not JSON: " + text, e);
    }
  }

  /** Writes an object of strings, numbers, booleans, lists and objects. */
  static String write(Map<String, Object> object) {
    return JSONValue.toJSONString(object);
  }

  Json path(String key) {
    return value instanceof Map<?, ?> m && m.containsKey(key) ? new Json(m.get(key)) : MISSING;
  }

  /** A JSON pointer such as {@code /workspaceState/openFiles}. */
  Json at(String pointer) {
    Json node = this;
    for (String part : pointer.substring(1).split("/")) {
      node = node.path(part);
    }
    return node;
  }

  boolean has(String key) {
    return value instanceof Map<?, ?> m && m.containsKey(key);
  }

  boolean isNull() {
    return value == null;
  }

  boolean isArray() {
    return value instanceof List;
  }

  String asString() {
    return asString("");
  }

  String asString(String missing) {
    return value instanceof String s ? s : value == null ? missing : String.valueOf(value);
  }

  int asInt() {
    return value instanceof Number n ? n.intValue() : 0;
  }

  long asLong() {
    return value instanceof Number n ? n.longValue() : 0;
  }

  double asDouble() {
    return value instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  boolean asBoolean() {
    return Boolean.TRUE.equals(value);
  }

  @Override
  public Iterator<Json> iterator() {
    List<Json> items = new ArrayList<>();
    if (value instanceof List<?> l) {
      l.forEach(v -> items.add(new Json(v)));
    }
    return items.iterator();
  }

  @Override
  public String toString() {
    return String.valueOf(value);
  }
}
