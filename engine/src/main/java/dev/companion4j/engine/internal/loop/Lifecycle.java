package dev.companion4j.engine.internal.loop;

import java.io.IOException;

/**
 * A companion's one life, {@code NEW → STARTING → RUNNING → STOPPED}, and the one lock of its
 * lifecycle. The lock is held only for steps that wait for no other thread (a state change, the
 * discovery files written or removed), never while waiting for the engine thread: a host call there
 * may wait for a UI thread that is itself asking {@link #isRunning()} or stopping the companion. So
 * a stop never waits for a start either: the starting thread finds it stopped at its next step and
 * undoes what it began.
 */
public final class Lifecycle {
  /** Where a companion is in its life. */
  public enum State {
    NEW,
    STARTING,
    RUNNING,
    STOPPED
  }

  /** A step taken under the lifecycle's lock; it must not wait for another thread. */
  public interface Step {
    void run() throws IOException;
  }

  /** Written under this; read without it, so that asking never waits. */
  private volatile State state = State.NEW;

  public boolean isRunning() {
    return state == State.RUNNING;
  }

  /** {@code NEW → STARTING}; a companion starts once. */
  public synchronized void beginStart() {
    if (state != State.NEW) {
      throw new IllegalStateException("a companion starts once; build a new one to restart");
    }
    state = State.STARTING;
  }

  /**
   * Takes {@code step} while the companion is still starting.
   *
   * @throws IOException when it was stopped meanwhile (nothing ran), or as the step failed
   */
  public synchronized void whileStarting(Step step) throws IOException {
    requireStarting();
    step.run();
  }

  /** {@code STARTING → RUNNING}; throws when it was stopped meanwhile. */
  public synchronized void started() throws IOException {
    requireStarting();
    state = State.RUNNING;
  }

  /**
   * Takes {@code step} if the companion runs.
   *
   * @return false when it does not run; nothing ran
   */
  public synchronized boolean whileRunning(Step step) throws IOException {
    if (state != State.RUNNING) {
      return false;
    }
    step.run();
    return true;
  }

  /**
   * Moves to {@code STOPPED}, taking {@code teardown} under the lock if the companion was starting
   * or running; once stopped, no other step runs.
   *
   * @return the state before
   */
  public synchronized State stop(Runnable teardown) {
    State before = state;
    state = State.STOPPED;
    if (before == State.STARTING || before == State.RUNNING) {
      teardown.run();
    }
    return before;
  }

  private void requireStarting() throws IOException {
    if (state != State.STARTING) {
      throw new IOException("the companion was stopped while it started");
    }
  }
}
