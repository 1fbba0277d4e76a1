package dev.companion4j.engine;

/** What became of the user's answer to a pending change. */
public sealed interface ChangeAnswer {

  /** The answer ended the change with {@code outcome}, which its proposer now has. */
  record Decided(ChangeOutcome outcome) implements ChangeAnswer {}

  /** The change had already ended, as {@code outcome} says; this answer changed nothing. */
  record Ended(ChangeOutcome outcome) implements ChangeAnswer {}

  /** No change with this id was ever pending, or it ended too long ago to be remembered. */
  record Unknown() implements ChangeAnswer {}
}
