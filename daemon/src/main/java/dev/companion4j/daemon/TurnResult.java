package dev.companion4j.daemon;

/**
 * How a prompt's turn ended.
 *
 * @param outcome the kind of ending
 * @param stopReason the daemon's stop reason for completed and cancelled turns, else {@code null}
 * @param message the error or the reason the session ended, else {@code null}
 */
public record TurnResult(String promptId, Outcome outcome, String stopReason, String message) {

  /** Kinds of ending. */
  public enum Outcome {
    /** {@code turn_complete} with a stop reason other than {@code cancelled}. */
    COMPLETED,
    /** {@code turn_complete} with stop reason {@code cancelled}. */
    CANCELLED,
    /** {@code turn_error}. */
    FAILED,
    /**
     * The session died or closed, or the client gave up on the connection, before the turn ended.
     */
    SESSION_ENDED
  }
}
