package dev.companion4j.extension.hook;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import dev.companion4j.wire.StrictUtf8;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A hook's JSON as dotted paths to scalar text ({@code tool_input.command}, {@code rules.0.name}),
 * read and written with Gson's streaming reader and writer alone: a hook starts a JVM on every tool
 * call, and a data-binding mapper, or Jackson's parser (whose base class initialises {@code
 * BigInteger}), would cost more than all the rest of the hook.
 */
final class FlatJson {
  /**
   * Nesting a hook's input may have: a model may put deep values in a tool call's extra arguments,
   * and a parser's usual default (a few hundred) would make the hook fail on them.
   */
  static final int MAX_NESTING = 10_000;

  /** Scalars deeper than this are skipped, not collected: no handler reads them. */
  private static final int KEPT_DEPTH = 16;

  private FlatJson() {}

  /**
   * Every scalar of {@code json} down to {@value #KEPT_DEPTH} levels by its dotted path, as text;
   * array elements are numbered from 0. Throws on anything that is not JSON in UTF-8 or nests
   * deeper than {@link #MAX_NESTING}.
   */
  static Map<String, String> read(byte[] json) {
    Map<String, String> flat = new LinkedHashMap<>();
    try {
      String text = StrictUtf8.decode(json);
      if (text.isBlank()) {
        return flat;
      }
      JsonReader p = new JsonReader(new StringReader(text));
      p.setStrictness(Strictness.STRICT);
      p.setNestingLimit(MAX_NESTING);
      value(p, "", 0, flat);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return flat;
  }

  private static void value(JsonReader p, String path, int depth, Map<String, String> flat)
      throws IOException {
    JsonToken t = p.peek();
    if (depth >= KEPT_DEPTH && (t == JsonToken.BEGIN_OBJECT || t == JsonToken.BEGIN_ARRAY)) {
      // Iterative: a deep value costs no stack.
      p.skipValue();
    } else if (t == JsonToken.BEGIN_OBJECT) {
      p.beginObject();
      while (p.hasNext()) {
        String name = p.nextName();
        value(p, path.isEmpty() ? name : path + "." + name, depth + 1, flat);
      }
      p.endObject();
    } else if (t == JsonToken.BEGIN_ARRAY) {
      p.beginArray();
      int i = 0;
      while (p.hasNext()) {
        value(p, path.isEmpty() ? Integer.toString(i) : path + "." + i, depth + 1, flat);
        i++;
      }
      p.endArray();
    } else if (t == JsonToken.NULL) {
      p.nextNull();
      flat.put(path, null);
    } else if (t == JsonToken.BOOLEAN) {
      flat.put(path, p.nextBoolean() ? "true" : "false");
    } else {
      // A number as its literal text, as for a string.
      flat.put(path, p.nextString());
    }
  }

  /**
   * A JSON object of string members, and one nested object of string members under {@code
   * nestedName}.
   */
  static String object(Map<String, String> members, String nestedName, Map<String, String> nested) {
    StringWriter out = new StringWriter();
    try (JsonWriter g = new JsonWriter(out)) {
      g.beginObject();
      for (Map.Entry<String, String> m : members.entrySet()) {
        g.name(m.getKey()).value(m.getValue());
      }
      if (!nested.isEmpty()) {
        g.name(nestedName);
        g.beginObject();
        for (Map.Entry<String, String> m : nested.entrySet()) {
          g.name(m.getKey()).value(m.getValue());
        }
        g.endObject();
      }
      g.endObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
