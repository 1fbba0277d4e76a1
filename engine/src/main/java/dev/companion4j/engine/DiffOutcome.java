package dev.companion4j.engine;

/** How a pending diff ended. */
public sealed interface DiffOutcome {

  /** The user accepted; {@code content} is the text the CLI will write, edits included. */
  record Accepted(String content) implements DiffOutcome {}

  /** The user rejected the edit. */
  record Rejected() implements DiffOutcome {}

  /** The CLI closed the diff itself, e.g. because the user answered in the terminal. */
  record ClosedByClient(String content) implements DiffOutcome {}

  /** A newer proposal for the same file replaced it. */
  record Replaced() implements DiffOutcome {}

  /** The CLI that proposed it left, so no answer can reach it. */
  record ClientGone() implements DiffOutcome {}

  /** The companion stopped; the CLI was told the edit was rejected. */
  record Stopped() implements DiffOutcome {}
}
