package dev.companion4j.engine;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;

/**
 * A problem the editor reports in a file: a compiler error, a linter warning, a hint.
 *
 * @param range where it is
 * @param severity how bad it is
 * @param message what the editor shows, not blank; cut with an ellipsis past {@link
 *     #MAX_MESSAGE_CHARS}
 * @param source who reported it (e.g. {@code javac}, {@code eslint}), or null when unknown; cut
 *     with an ellipsis past {@link #MAX_SOURCE_CHARS}
 */
public record Diagnostic(TextRange range, Severity severity, String message, String source) {
  /** Longer messages are cut: a diagnostic is a line in a list, not a document. */
  public static final int MAX_MESSAGE_CHARS = 2000;

  /** Longer sources are cut: a source is a tool's name. */
  public static final int MAX_SOURCE_CHARS = 200;

  public Diagnostic {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(severity, "severity");
    if (message == null || message.isBlank()) {
      throw new IllegalArgumentException("a diagnostic needs a message");
    }
    message = Texts.cut(message, MAX_MESSAGE_CHARS, "…");
    source = source == null ? null : Texts.cut(source, MAX_SOURCE_CHARS, "…");
  }

  /** The severities every editor maps its own onto, most severe first. */
  public enum Severity {
    ERROR,
    WARNING,
    INFORMATION,
    HINT;

    /** The name on the wire: {@code error}, {@code warning}, {@code information}, {@code hint}. */
    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The severity with this wire name. */
    @JsonCreator
    public static Severity ofWireName(String name) {
      for (Severity s : values()) {
        if (s.wireName().equals(name)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          "severity must be error, warning, information or hint, got '" + name + "'");
    }
  }
}
