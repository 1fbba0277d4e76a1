package dev.companion4j.extension.ide;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.wire.StrictUtf8;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A companion's {@code GET /ide/status} answer read with Gson's streaming reader: a session-start
 * hook reads it in a fresh JVM, where a data-binding mapper's set-up and its reflection over the
 * records would cost more than the request. Reads what the mapper read: unknown names are skipped,
 * a missing or null value is null (0 for a number); anything malformed is an {@link IOException}.
 */
final class StatusJson {
  private StatusJson() {}

  static CompanionStatus read(InputStream in) throws IOException {
    JsonReader p = new JsonReader(StrictUtf8.reader(in));
    p.setStrictness(Strictness.STRICT);
    IdeInfo ide = null;
    int port = 0;
    List<String> roots = null;
    CompanionStatus.ActiveFile active = null;
    List<String> openFiles = null;
    List<String> features = null;
    List<CompanionStatus.Client> clients = null;
    List<CompanionStatus.Diff> diffs = null;
    try {
      p.beginObject();
      while (p.hasNext()) {
        switch (p.nextName()) {
          case "ide" -> ide = isNull(p) ? null : ide(p);
          case "port" -> port = number(p);
          case "workspaceRoots" -> roots = strings(p);
          case "activeFile" -> active = isNull(p) ? null : activeFile(p);
          case "openFiles" -> openFiles = strings(p);
          case "features" -> features = strings(p);
          case "clients" -> clients = list(p, StatusJson::client);
          case "pendingDiffs" -> diffs = list(p, StatusJson::diff);
          default -> p.skipValue();
        }
      }
      p.endObject();
      if (p.peek() != JsonToken.END_DOCUMENT) {
        throw new IOException("content after the status object");
      }
      return new CompanionStatus(ide, port, roots, active, openFiles, features, clients, diffs);
    } catch (RuntimeException e) {
      // A record refusing a missing list or a blank name, or a number out of range.
      throw new IOException("the companion's status is malformed: " + e.getMessage(), e);
    }
  }

  private static IdeInfo ide(JsonReader p) throws IOException {
    String name = null;
    String displayName = null;
    p.beginObject();
    while (p.hasNext()) {
      switch (p.nextName()) {
        case "name" -> name = string(p);
        case "displayName" -> displayName = string(p);
        default -> p.skipValue();
      }
    }
    p.endObject();
    return new IdeInfo(name, displayName);
  }

  private static CompanionStatus.ActiveFile activeFile(JsonReader p) throws IOException {
    String path = null;
    int line = 0;
    int character = 0;
    String selectedText = null;
    p.beginObject();
    while (p.hasNext()) {
      switch (p.nextName()) {
        case "path" -> path = string(p);
        case "line" -> line = number(p);
        case "character" -> character = number(p);
        case "selectedText" -> selectedText = string(p);
        default -> p.skipValue();
      }
    }
    p.endObject();
    return new CompanionStatus.ActiveFile(path, line, character, selectedText);
  }

  private static CompanionStatus.Client client(JsonReader p) throws IOException {
    String id = null;
    String name = null;
    String version = null;
    String label = null;
    String program = null;
    long pid = 0;
    String terminal = null;
    String connectedAt = null;
    p.beginObject();
    while (p.hasNext()) {
      switch (p.nextName()) {
        case "id" -> id = string(p);
        case "name" -> name = string(p);
        case "version" -> version = string(p);
        case "label" -> label = string(p);
        case "program" -> program = string(p);
        case "pid" -> pid = isNull(p) ? 0 : p.nextLong();
        case "terminal" -> terminal = string(p);
        case "connectedAt" -> connectedAt = string(p);
        default -> p.skipValue();
      }
    }
    p.endObject();
    return new CompanionStatus.Client(
        id, name, version, label, program, pid, terminal, connectedAt);
  }

  private static CompanionStatus.Diff diff(JsonReader p) throws IOException {
    String id = null;
    String filePath = null;
    String clientId = null;
    String clientName = null;
    String openedAt = null;
    p.beginObject();
    while (p.hasNext()) {
      switch (p.nextName()) {
        case "id" -> id = string(p);
        case "filePath" -> filePath = string(p);
        case "clientId" -> clientId = string(p);
        case "clientName" -> clientName = string(p);
        case "openedAt" -> openedAt = string(p);
        default -> p.skipValue();
      }
    }
    p.endObject();
    return new CompanionStatus.Diff(id, filePath, clientId, clientName, openedAt);
  }

  private interface Element<T> {
    T read(JsonReader p) throws IOException;
  }

  private static <T> List<T> list(JsonReader p, Element<T> element) throws IOException {
    if (isNull(p)) {
      return null;
    }
    List<T> list = new ArrayList<>();
    p.beginArray();
    while (p.hasNext()) {
      list.add(isNull(p) ? null : element.read(p));
    }
    p.endArray();
    return list;
  }

  private static List<String> strings(JsonReader p) throws IOException {
    return list(p, StatusJson::string);
  }

  /** A string, or null; a number or a boolean as its text, as the mapper coerced them. */
  private static String string(JsonReader p) throws IOException {
    JsonToken t = p.peek();
    if (t == JsonToken.NULL) {
      p.nextNull();
      return null;
    }
    if (t == JsonToken.BOOLEAN) {
      return Boolean.toString(p.nextBoolean());
    }
    if (t != JsonToken.STRING && t != JsonToken.NUMBER) {
      throw new IOException("a string was expected, not " + t);
    }
    return p.nextString();
  }

  private static int number(JsonReader p) throws IOException {
    return isNull(p) ? 0 : p.nextInt();
  }

  /** Whether the next value is null, which it then consumes. */
  private static boolean isNull(JsonReader p) throws IOException {
    if (p.peek() == JsonToken.NULL) {
      p.nextNull();
      return true;
    }
    return false;
  }
}
