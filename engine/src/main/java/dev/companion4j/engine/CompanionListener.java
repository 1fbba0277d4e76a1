package dev.companion4j.engine;

/**
 * Observes a running companion, e.g. for a status display or an event stream.
 *
 * <p>Every callback runs on the companion's engine thread ({@code companion4j-engine}), one at a
 * time and in the order the events happened, the same thread as every {@link CompanionHost} call.
 * Keep each call short and never block in it: the CLIs' context updates and diff outcomes wait
 * behind it.
 */
public interface CompanionListener {

  /** A CLI finished its handshake. */
  default void clientConnected(ConnectedClient client) {}

  /** A CLI left: it said goodbye, its connection broke, it stopped reading, or it was idle. */
  default void clientDisconnected(ConnectedClient client) {}

  /** A diff is on show, after {@link CompanionHost#showDiff} returned. */
  default void diffOpened(PendingDiff diff) {}

  /** A diff ended; exactly once for every {@link #diffOpened}. */
  default void diffClosed(PendingDiff diff, DiffOutcome outcome) {}

  /** A change of several files is on show, after {@link CompanionHost#showChange} returned. */
  default void changeOpened(PendingChange change) {}

  /** A change ended; exactly once for every {@link #changeOpened}. */
  default void changeClosed(PendingChange change, ChangeOutcome outcome) {}

  /** A context update went out to the connected CLIs. */
  default void contextSent(IdeContext context) {}

  /** A file's diagnostics changed; an empty list means it has none now. */
  default void diagnosticsChanged(FileDiagnostics diagnostics) {}
}
