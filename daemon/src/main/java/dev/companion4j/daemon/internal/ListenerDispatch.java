package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.EventMeta;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a session's listener, and its turn tracker, of events and connection changes; a listener's
 * failure is logged and the stream goes on.
 */
final class ListenerDispatch {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerDispatch.class);

  private final String sessionId;
  private final DaemonListener listener;
  private final TurnTracker turns;
  private final EventCursor cursor;

  ListenerDispatch(
      String sessionId, DaemonListener listener, TurnTracker turns, EventCursor cursor) {
    this.sessionId = sessionId;
    this.listener = listener;
    this.turns = turns;
    this.cursor = cursor;
  }

  void deliver(DaemonEvent event) {
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("daemon listener failed on {}", event.getClass().getSimpleName(), e);
    } finally {
      turns.onEvent(event);
    }
  }

  void status(State state, int attempt, Duration retryIn, String detail) {
    try {
      listener.onConnectionChanged(
          new ConnectionStatus(state, attempt, retryIn, Math.max(0, cursor.lastEventId()), detail));
    } catch (RuntimeException e) {
      LOG.warn("daemon listener failed on a connection change", e);
    }
  }

  /** Ends the session with a {@link SessionDied} the client marks as its own observation. */
  void giveUp(String reason, String detail) {
    LOG.warn("giving up on the event stream of session {}: {} ({})", sessionId, reason, detail);
    deliver(
        new SessionDied(
            new EventMeta(0, sessionId, null, null, System.currentTimeMillis()),
            reason,
            null,
            null,
            false));
    status(State.LOST, 0, Duration.ZERO, detail);
  }
}
