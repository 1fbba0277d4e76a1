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
 * @param message what the editor shows, not blank
 * @param source who reported it (e.g. {@code javac}, {@code eslint}), or null when unknown
 */
public record Diagnostic(TextRange range, Severity severity, String message, String source) {
  public Diagnostic {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(severity, "severity");
    if (message == null || message.isBlank()) {
      throw new IllegalArgumentException("a diagnostic needs a message");
    }
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
      throw new IllegalArgumentException("severity must be error, warning, information or hint, got '" + name + "'");
    }
  }
}
