package dev.companion4j.engine;

/**
 * Observes a running companion, e.g. for a status display. Called on engine threads; keep each
 * call short.
 */
public interface CompanionListener {

  default void clientConnected(ConnectedClient client) {}

  default void clientDisconnected(ConnectedClient client) {}

  default void diffOpened(PendingDiff diff) {}

  default void diffClosed(PendingDiff diff, DiffOutcome outcome) {}

  /** A context update went out to the connected CLIs. */
  default void contextSent(IdeContext context) {}
}
