package dev.companion4j.testkit;

/**
 * A prompt that has {@link FakeModelServer} call Qwen Code's {@code ask_user_question} with two
 * questions: one choice, whose text looks like markup, and one that takes several. Once answered,
 * the model says {@code Tool said: User has provided the following answers: **Library**: ...}.
 */
public final class AskUserQuestion {
  /** The first question, as the user must see it: text, never markup. */
  public static final String FIRST = "Which <b>library</b>?";

  public static final String PROMPT =
      "[[call ask_user_question {\"questions\":["
          + "{\"question\":\""
          + FIRST
          + "\",\"header\":\"Library\",\"options\":["
          + "{\"label\":\"Joda\",\"description\":\"the old one\"},"
          + "{\"label\":\"java.time\",\"description\":\"built in\"}]},"
          + "{\"question\":\"Which checks?\",\"header\":\"Checks\",\"multiSelect\":true,"
          + "\"options\":[{\"label\":\"lint\",\"description\":\"style\"},"
          + "{\"label\":\"tests\",\"description\":\"unit\"}]}]}]]";

  private AskUserQuestion() {}
}
