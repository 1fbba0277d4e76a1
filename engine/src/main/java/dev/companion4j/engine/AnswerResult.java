package dev.companion4j.engine;

/** What became of the user's answer to a diff. */
public sealed interface AnswerResult {

  /** The answer ended the diff and is on its way to the CLI that proposed it. */
  record Sent(DiffOutcome outcome) implements AnswerResult {}

  /**
   * The diff had already ended, so this answer changed nothing. {@code outcome} says how: answered
   * before, replaced by a newer proposal, closed by its CLI, or {@link DiffOutcome.ClientGone} when
   * the CLI that proposed it has left.
   */
  record Ended(DiffOutcome outcome) implements AnswerResult {}

  /** No diff with this id was ever pending, or it ended too long ago to be remembered. */
  record Unknown() implements AnswerResult {}
}
