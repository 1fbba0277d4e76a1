package dev.companion4j.engine.internal.loop;

/**
 * Time as the engine's single thread sees it: a monotonic clock and delayed tasks run on that
 * thread. Injected, so that timing logic is tested with a fake clock instead of sleeping.
 */
public interface EngineScheduler {

  /** A monotonic time in nanoseconds, as {@link System#nanoTime()}. */
  long nanoTime();

  /**
   * Runs {@code task} on the engine thread after {@code delayNanos}.
   *
   * @return cancels the task if it has not started
   */
  Runnable schedule(Runnable task, long delayNanos);
}
