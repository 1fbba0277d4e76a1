package dev.companion4j.engine.discovery;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.companion4j.wire.StrictUtf8;
import java.io.IOException;
import java.io.StringReader;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The few fields a client reads from a discovery file or a proof answer, read with Gson's streaming
 * reader: a session-start hook starts a JVM to read them, and a data-binding mapper's set-up (its
 * date format loads the JDK's locale data) would cost it more than the rest of its work. Strict
 * JSON in UTF-8 with nothing after the object; anything else throws.
 */
final class DiscoveryJson {
  private DiscoveryJson() {}

  /**
   * A discovery file's fields.
   *
   * @param port the port, or -1 when it names none as a number
   * @param ppid the companion's process, when the file names it as a number
   * @param workspacePath the roots, or empty
   * @param ideName {@code ideInfo.displayName}, when it is a string
   * @param authToken the token, or empty
   */
  record Fields(
      int port,
      OptionalLong ppid,
      String workspacePath,
      Optional<String> ideName,
      String authToken) {}

  static Fields discoveryFile(byte[] json) throws IOException {
    JsonReader p = open(json);
    int port = -1;
    OptionalLong ppid = OptionalLong.empty();
    String workspacePath = "";
    Optional<String> ideName = Optional.empty();
    String authToken = "";
    p.beginObject();
    while (p.hasNext()) {
      // A repeated name counts as its last value.
      switch (p.nextName()) {
        case "port" -> port = intOr(p, -1);
        case "ppid" ->
            ppid = p.peek() == JsonToken.NUMBER ? OptionalLong.of(p.nextLong()) : skip(p);
        case "workspacePath" -> workspacePath = stringOr(p, "");
        case "authToken" -> authToken = stringOr(p, "");
        case "ideInfo" -> ideName = displayName(p);
        default -> p.skipValue();
      }
    }
    p.endObject();
    end(p);
    return new Fields(port, ppid, workspacePath, ideName, authToken);
  }

  /** The {@code proof} of a proof answer, when it is a string. */
  static Optional<String> proof(byte[] json) throws IOException {
    JsonReader p = open(json);
    Optional<String> proof = stringIn(p, "proof");
    end(p);
    return proof;
  }

  private static Optional<String> displayName(JsonReader p) throws IOException {
    if (p.peek() != JsonToken.BEGIN_OBJECT) {
      p.skipValue();
      return Optional.empty();
    }
    return stringIn(p, "displayName");
  }

  /** The object's value of {@code name} (its last one), when it is a string. */
  private static Optional<String> stringIn(JsonReader p, String name) throws IOException {
    Optional<String> value = Optional.empty();
    p.beginObject();
    while (p.hasNext()) {
      if (!p.nextName().equals(name)) {
        p.skipValue();
      } else if (p.peek() == JsonToken.STRING) {
        value = Optional.of(p.nextString());
      } else {
        value = Optional.empty();
        p.skipValue();
      }
    }
    p.endObject();
    return value;
  }

  private static int intOr(JsonReader p, int fallback) throws IOException {
    if (p.peek() != JsonToken.NUMBER) {
      p.skipValue();
      return fallback;
    }
    double n = p.nextDouble();
    return n == Math.rint(n) && Math.abs(n) <= Integer.MAX_VALUE ? (int) n : fallback;
  }

  private static String stringOr(JsonReader p, String fallback) throws IOException {
    if (p.peek() != JsonToken.STRING) {
      p.skipValue();
      return fallback;
    }
    return p.nextString();
  }

  private static OptionalLong skip(JsonReader p) throws IOException {
    p.skipValue();
    return OptionalLong.empty();
  }

  private static JsonReader open(byte[] json) throws IOException {
    JsonReader p = new JsonReader(new StringReader(StrictUtf8.decode(json)));
    p.setStrictness(Strictness.STRICT);
    return p;
  }

  private static void end(JsonReader p) throws IOException {
    if (p.peek() != JsonToken.END_DOCUMENT) {
      throw new IOException("content after the JSON object");
    }
  }
}
