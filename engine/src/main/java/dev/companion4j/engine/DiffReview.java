package dev.companion4j.engine;

/**
 * The answer side of one pending diff, handed to the host with it. Answers go to this proposal
 * alone: after the CLI replaced or closed it, they change nothing and say so.
 *
 * <p>Thread-safe; call from any thread. Only the first answer counts.
 */
public interface DiffReview {

  DiffId diffId();

  /**
   * The user accepted; the CLI writes {@code content}.
   *
   * @param content the accepted text, the user's edits included; null for the text as proposed
   */
  AnswerResult accept(String content);

  /** The user rejected the edit. */
  AnswerResult reject();
}
