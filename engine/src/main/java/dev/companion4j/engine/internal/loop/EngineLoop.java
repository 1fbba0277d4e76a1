package dev.companion4j.engine.internal.loop;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine thread: every host call and every listener callback runs here, one at a time, in the
 * order it was queued. Nothing on it waits for a network peer.
 */
public final class EngineLoop implements Executor, EngineScheduler {
  private static final Logger log = LoggerFactory.getLogger(EngineLoop.class);

  /**
   * The longest anyone waits for the engine thread to have the host answer: reading the roots,
   * showing or closing a diff, opening a file. The host contract asks for prompt answers; past this
   * the waiting caller (a CLI's tool call, a route, a lifecycle call) gets an error instead of
   * hanging with it.
   */
  public static final Duration HOST_ANSWER_BOUND = Duration.ofSeconds(5);

  private final ScheduledExecutorService thread;
  private volatile Thread owner;

  public EngineLoop(String name) {
    thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              owner = t;
              return t;
            });
  }

  @Override
  public void execute(Runnable task) {
    try {
      thread.execute(guarded(task));
    } catch (RejectedExecutionException stopped) {
      log.debug("Engine stopped; task dropped");
    }
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Runnable schedule(Runnable task, long delayNanos) {
    try {
      ScheduledFuture<?> future = thread.schedule(guarded(task), delayNanos, TimeUnit.NANOSECONDS);
      return () -> future.cancel(false);
    } catch (RejectedExecutionException stopped) {
      return () -> {};
    }
  }

  /** Runs {@code task} every {@code period}, starting after one period. */
  public void every(Duration period, Runnable task) {
    try {
      thread.scheduleWithFixedDelay(
          guarded(task), period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      log.debug("Engine stopped; periodic task not scheduled");
    }
  }

  /**
   * Runs {@code task} on the engine thread and waits for its result, at most {@link
   * #HOST_ANSWER_BOUND}; directly when already on it.
   *
   * @throws TimeoutException when the task has not finished within the bound; it no longer runs if
   *     it had not started
   */
  public <T> T call(Callable<T> task) throws Exception {
    if (Thread.currentThread() == owner) {
      return task.call();
    }
    Future<T> result = thread.submit(task);
    try {
      return result.get(HOST_ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      result.cancel(false);
      throw new TimeoutException(
          "the editor did not answer within " + HOST_ANSWER_BOUND.toSeconds() + " s");
    }
  }

  /**
   * Runs what is queued, then stops; waits at most {@code bound}, and not at all on the engine
   * thread itself.
   */
  public void shutdown(Duration bound) {
    thread.shutdown();
    if (Thread.currentThread() == owner) {
      return;
    }
    try {
      if (!thread.awaitTermination(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("The engine thread did not finish within {}; stopping it", bound);
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        // The executor would swallow it; an OutOfMemoryError here must at least leave a line.
        log.error("Engine task failed", e);
      }
    };
  }
}
