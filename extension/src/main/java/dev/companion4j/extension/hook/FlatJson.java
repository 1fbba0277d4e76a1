package dev.companion4j.extension.hook;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;

/**
 * A hook's JSON as dotted paths to scalar text ({@code tool_input.command}, {@code rules.0.name}),
 * read and written with Jackson's streaming parser alone: a hook starts a JVM on every tool call,
 * and setting up a data-binding mapper would cost more than all the rest of the hook.
 */
final class FlatJson {
  /**
   * Nesting a hook's input may have: a model may put deep values in a tool call's extra arguments,
   * and Jackson's default (500) would make the hook fail on them.
   */
  static final int MAX_NESTING = 10_000;

  /** Scalars deeper than this are skipped, not collected: no handler reads them. */
  private static final int KEPT_DEPTH = 16;

  /** A hook parses a document or two and exits: buffer recycling would only cost its set-up. */
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .recyclerPool(JsonRecyclerPools.nonRecyclingPool())
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
          .build();

  private FlatJson() {}

  /**
   * Every scalar of {@code json} down to {@value #KEPT_DEPTH} levels by its dotted path, as text;
   * array elements are numbered from 0. Throws on anything that is not JSON in UTF-8 or nests
   * deeper than {@link #MAX_NESTING}.
   */
  static Map<String, String> read(byte[] json) {
    Map<String, String> flat = new LinkedHashMap<>();
    try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), json)) {
      if (p.nextToken() != null) {
        value(p, "", 0, flat);
      }
    }
    return flat;
  }

  private static void value(JsonParser p, String path, int depth, Map<String, String> flat) {
    JsonToken t = p.currentToken();
    if (depth >= KEPT_DEPTH && (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY)) {
      // Iterative: a deep value costs no stack.
      p.skipChildren();
    } else if (t == JsonToken.START_OBJECT) {
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        p.nextToken();
        value(p, path.isEmpty() ? name : path + "." + name, depth + 1, flat);
      }
    } else if (t == JsonToken.START_ARRAY) {
      int i = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        value(p, path.isEmpty() ? Integer.toString(i) : path + "." + i, depth + 1, flat);
        i++;
      }
    } else {
      flat.put(path, t == JsonToken.VALUE_NULL ? null : p.getString());
    }
  }

  /**
   * A JSON object of string members, and one nested object of string members under {@code
   * nestedName}.
   */
  static String object(Map<String, String> members, String nestedName, Map<String, String> nested) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
      g.writeStartObject();
      for (Map.Entry<String, String> m : members.entrySet()) {
        g.writeStringProperty(m.getKey(), m.getValue());
      }
      if (!nested.isEmpty()) {
        g.writeName(nestedName);
        g.writeStartObject();
        for (Map.Entry<String, String> m : nested.entrySet()) {
          g.writeStringProperty(m.getKey(), m.getValue());
        }
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }
}
