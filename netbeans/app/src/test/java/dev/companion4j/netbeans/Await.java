package dev.companion4j.netbeans;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * Waits for a condition by polling it, failing with the last value seen. (NbModuleSuite hides
 * non-module test jars such as Awaitility from the test.)
 */
final class Await {
  private static final long POLL_MILLIS = 50;

  private Await() {}

  static <T> T until(Duration timeout, Callable<T> probe, Predicate<? super T> done)
      throws Exception {
    return until(timeout, Duration.ofMillis(POLL_MILLIS), probe, done);
  }

  static <T> T until(Duration timeout, Duration poll, Callable<T> probe, Predicate<? super T> done)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    Exception lastError = null;
    while (true) {
      try {
        last = probe.call();
        lastError = null;
        if (done.test(last)) {
          return last;
        }
      } catch (Exception e) {
        lastError = e;
      }
      if (System.nanoTime() > deadline) {
        AssertionError failure =
            new AssertionError("condition not met within " + timeout + "; last value: " + last);
        if (lastError != null) {
          failure.initCause(lastError);
        }
        throw failure;
      }
      Thread.sleep(poll.toMillis());
    }
  }

  static void until(Duration timeout, Callable<Boolean> condition) throws Exception {
    until(timeout, condition, Boolean.TRUE::equals);
  }
}
