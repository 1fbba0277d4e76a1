package dev.companion4j.extension.hook;

import java.util.regex.Pattern;

/**
 * The hand-off an agent of this extension owes its caller: a {@code Task Report} and a {@code
 * Downstream Context} section, as level-one or level-two headings.
 */
final class HandOff {
  private static final Pattern REPORT = Pattern.compile("(?m)^#{1,2}\\s*Task Report\\s*$");
  private static final Pattern CONTEXT = Pattern.compile("(?m)^#{1,2}\\s*Downstream Context\\s*$");

  static final String RETRY =
      "Your answer lacks the hand-off sections. Answer again, ending with a '## Task Report' "
          + "section (what you found or did) and a '## Downstream Context' section (what the caller needs next).";
  static final String RETRY_CALLER =
      "The agent's answer lacks the hand-off sections. Invoke it again and ask it to end "
          + "with a '## Task Report' section and a '## Downstream Context' section.";
  static final String LET_THROUGH =
      "The agent's answer still lacks a '## Task Report' or '## Downstream Context' "
          + "section; it was passed on as it is.";

  private HandOff() {}

  static boolean complete(String answer) {
    return answer != null && REPORT.matcher(answer).find() && CONTEXT.matcher(answer).find();
  }
}
