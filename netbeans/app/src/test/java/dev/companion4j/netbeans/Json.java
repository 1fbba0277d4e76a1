package dev.companion4j.netbeans;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value, read-only, with just what the tests need. NbModuleSuite hides non-module jars of
 * the test class path from the test, so a JSON library is not available there.
 */
final class Json implements Iterable<Json> {
  static final Json MISSING = new Json(null);

  private final Object value;

  private Json(Object value) {
    this.value = value;
  }

  static Json parse(String text) {
    Parser p = new Parser(text);
    Object v = p.value();
    p.skipSpace();
    if (p.pos != text.length()) {
      throw new IllegalArgumentException("trailing text in JSON: " + text);
    }
    return new Json(v);
  }

  /** Writes a flat object of strings, numbers and booleans. */
  static String write(Map<String, Object> object) {
    StringBuilder out = new StringBuilder("{");
    object.forEach((k, v) -> {
      if (out.length() > 1) {
        out.append(',');
      }
      quote(out, k);
      out.append(':');
      if (v instanceof String s) {
        quote(out, s);
      } else {
        out.append(v);
      }
    });
    return out.append('}').toString();
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

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static final class Parser {
    final String s;
    int pos;

    Parser(String s) {
      this.s = s;
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    Object value() {
      skipSpace();
      char c = s.charAt(pos);
      switch (c) {
        case '{' -> {
          pos++;
          Map<String, Object> m = new LinkedHashMap<>();
          skipSpace();
          if (s.charAt(pos) == '}') {
            pos++;
            return m;
          }
          while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            m.put(key, value());
            skipSpace();
            if (s.charAt(pos) == ',') {
              pos++;
            } else {
              expect('}');
              return m;
            }
          }
        }
        case '[' -> {
          pos++;
          List<Object> l = new ArrayList<>();
          skipSpace();
          if (s.charAt(pos) == ']') {
            pos++;
            return l;
          }
          while (true) {
            l.add(value());
            skipSpace();
            if (s.charAt(pos) == ',') {
              pos++;
            } else {
              expect(']');
              return l;
            }
          }
        }
        case '"' -> {
          return string();
        }
        default -> {
          if (s.startsWith("true", pos)) {
            pos += 4;
            return Boolean.TRUE;
          }
          if (s.startsWith("false", pos)) {
            pos += 5;
            return Boolean.FALSE;
          }
          if (s.startsWith("null", pos)) {
            pos += 4;
            return null;
          }
          int start = pos;
          while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
            pos++;
          }
          String num = s.substring(start, pos);
          if (num.isEmpty()) {
            throw new IllegalArgumentException("bad JSON at " + start + ": " + s);
          }
          return num.contains(".") || num.contains("e") || num.contains("E") ? (Object) Double.valueOf(num) : (Object) Long.valueOf(num);
        }
      }
    }

    String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          char e = s.charAt(pos++);
          switch (e) {
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'u' -> {
              out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
              pos += 4;
            }
            default -> out.append(e);
          }
        } else {
          out.append(c);
        }
      }
    }

    void expect(char c) {
      if (s.charAt(pos) != c) {
        throw new IllegalArgumentException("expected " + c + " at " + pos + ": " + s);
      }
      pos++;
    }
  }
}
