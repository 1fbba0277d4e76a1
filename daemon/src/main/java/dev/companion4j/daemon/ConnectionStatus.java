package dev.companion4j.daemon;

import java.time.Duration;

/**
 * The state of a session's event connection, reported so a UI can show drops and resumes.
 *
 * @param state what happened
 * @param attempt the reconnect attempt this status belongs to ({@code 0} for the first connection)
 * @param retryIn how long the client waits before the next attempt ({@link Duration#ZERO} unless
 *     {@link State#RECONNECTING})
 * @param lastEventId the last event id received; a resumed stream continues after it
 * @param detail why the connection dropped or gave up, or {@code null}
 */
public record ConnectionStatus(
    State state, int attempt, Duration retryIn, long lastEventId, String detail) {

  /** Connection states. */
  public enum State {
    /** The stream is open ({@code attempt > 0}: resumed after a drop). */
    CONNECTED,
    /** The stream dropped; the client will reconnect after {@code retryIn}. */
    RECONNECTING,
    /** The client gave up: the daemon stayed unreachable or the session ended. */
    LOST,
    /** The subscription was closed by the client. */
    CLOSED
  }
}
