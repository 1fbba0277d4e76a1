package dev.companion4j.engine;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The identity of one proposed edit. A CLI that proposes a second edit for the same file gets a new
 * id, so an answer meant for the first can never reach the second.
 *
 * @param value sixteen lowercase hex digits
 */
public record DiffId(String value) {
  private static final Pattern FORM = Pattern.compile("[0-9a-f]{16}");
  private static final SecureRandom RANDOM = new SecureRandom();

  public DiffId {
    Objects.requireNonNull(value, "value");
    if (!FORM.matcher(value).matches()) {
      throw new IllegalArgumentException("a diff id is sixteen lowercase hex digits");
    }
  }

  /** A fresh id; ids are random so that one from an earlier run never matches. */
  public static DiffId random() {
    byte[] bytes = new byte[8];
    RANDOM.nextBytes(bytes);
    return new DiffId(HexFormat.of().formatHex(bytes));
  }

  /** Whether {@code text} has the form of an id, e.g. to validate a URL segment first. */
  public static boolean isValid(String text) {
    return text != null && FORM.matcher(text).matches();
  }

  @Override
  public String toString() {
    return value;
  }
}
