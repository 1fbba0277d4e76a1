package dev.companion4j.engine.internal.loop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A virtual clock: tasks run when the test advances time past them, in order, on the test's thread.
 */
public final class FakeScheduler implements EngineScheduler {
  private record Task(long at, long seq, Runnable run) {}

  private final List<Task> tasks = new ArrayList<>();
  private long now;
  private long seq;

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public Runnable schedule(Runnable task, long delayNanos) {
    Task t = new Task(now + delayNanos, seq++, task);
    tasks.add(t);
    return () -> tasks.remove(t);
  }

  /** Moves the clock forward by {@code d}, running every task that falls due on the way. */
  public void advance(Duration d) {
    long until = now + d.toNanos();
    while (true) {
      Task next =
          tasks.stream()
              .filter(t -> t.at() <= until)
              .min(Comparator.comparingLong(Task::at).thenComparingLong(Task::seq))
              .orElse(null);
      if (next == null) {
        break;
      }
      tasks.remove(next);
      now = next.at();
      next.run().run();
    }
    now = until;
  }

  public int pending() {
    return tasks.size();
  }
}
