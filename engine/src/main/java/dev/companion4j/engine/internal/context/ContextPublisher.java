package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.internal.loop.EngineScheduler;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Debounces context changes into updates for the CLIs: an update goes out once changes have settled
 * for {@code debounce} (trailing), but no later than {@code maxDelay} after the first unsent
 * change, so a user who never stops moving the caret still gets updates. A context equal to the
 * last one published is not published again.
 *
 * <p>Not thread-safe: {@link #changed} is called, and {@code publish} runs, on the engine thread
 * that the {@link EngineScheduler} runs its tasks on.
 */
public final class ContextPublisher {
  private final long debounceNanos;
  private final long maxDelayNanos;
  private final EngineScheduler scheduler;
  private final Consumer<IdeContext> publish;

  private IdeContext latest;
  private IdeContext lastPublished;
  private Runnable cancelPending;
  private long firstUnsentNanos;
  private boolean unsent;

  public ContextPublisher(
      Duration debounce,
      Duration maxDelay,
      EngineScheduler scheduler,
      Consumer<IdeContext> publish) {
    if (maxDelay.compareTo(debounce) < 0) {
      throw new IllegalArgumentException("maxDelay must not be shorter than debounce");
    }
    this.debounceNanos = debounce.toNanos();
    this.maxDelayNanos = maxDelay.toNanos();
    this.scheduler = scheduler;
    this.publish = publish;
  }

  /** The context changed to {@code context}; an update follows after the debounce. */
  public void changed(IdeContext context) {
    latest = context;
    long now = scheduler.nanoTime();
    if (!unsent) {
      unsent = true;
      firstUnsentNanos = now;
    }
    if (cancelPending != null) {
      cancelPending.run();
    }
    long deadline = firstUnsentNanos + maxDelayNanos;
    long delay = Math.max(0, Math.min(debounceNanos, deadline - now));
    cancelPending = scheduler.schedule(this::fire, delay);
  }

  private void fire() {
    unsent = false;
    cancelPending = null;
    if (latest.equals(lastPublished)) {
      return;
    }
    lastPublished = latest;
    publish.accept(latest);
  }
}
