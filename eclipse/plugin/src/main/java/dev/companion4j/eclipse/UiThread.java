package dev.companion4j.eclipse;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.swt.widgets.Display;

/**
 * Work the engine's threads hand to the UI thread and wait for, never longer than a bound: a UI
 * thread that is itself waiting for the companion must not hold the engine up for good.
 */
public final class UiThread {
  private UiThread() {}

  /**
   * Runs {@code work} on the display's UI thread and returns its result.
   *
   * @throws ExecutionException with what the work threw as its cause
   * @throws TimeoutException when the UI thread did not get it done within {@code bound}
   */
  public static <T> T call(Display display, Duration bound, Callable<T> work)
      throws ExecutionException, TimeoutException, InterruptedException {
    CompletableFuture<T> done = new CompletableFuture<>();
    display.asyncExec(
        () -> {
          try {
            done.complete(work.call());
          } catch (Exception e) {
            done.completeExceptionally(e);
          }
        });
    return done.get(bound.toMillis(), TimeUnit.MILLISECONDS);
  }
}
