package dev.companion4j.engine;

/** Cutting text a peer sent to a bound. */
final class Texts {
  private Texts() {}

  /**
   * {@code text}, or its first {@code max} characters with {@code mark} appended; a surrogate pair
   * is never split, since half of one cannot be written as UTF-8.
   */
  static String cut(String text, int max, String mark) {
    if (text.length() <= max) {
      return text;
    }
    int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
    return text.substring(0, end) + mark;
  }
}
