package dev.companion4j.daemon.internal;

import java.util.concurrent.TimeUnit;

/**
 * When a dropped stream reconnects, and when it gives up: the daemon's {@code retry:} delay,
 * doubled per attempt until a connection stays up, within the reconnect budget. Confined to the
 * reading thread.
 */
final class Backoff {
  private static final long MIN_RETRY_MS = 100;
  private static final long MAX_RETRY_MS = 30_000;

  /** How long a connection must stay up before the backoff starts again from the daemon's delay. */
  private static final long STABLE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final long budgetMillis;
  private long retryMillis = 3000;
  private int attempt;
  private long downSince;
  private boolean acceptedWhileDown;

  Backoff(long budgetMillis) {
    this.budgetMillis = budgetMillis;
  }

  int attempt() {
    return attempt;
  }

  /** The daemon's {@code retry:} value, kept within bounds. */
  void retry(long millis) {
    retryMillis = Math.max(MIN_RETRY_MS, Math.min(MAX_RETRY_MS, millis));
  }

  void connected() {
    acceptedWhileDown |= downSince != 0;
  }

  /**
   * Counts an attempt after a connection ended or failed.
   *
   * @param connectedAt when the connection opened, or {@code -1} when it did not
   * @param newEvents whether it brought events not delivered before
   * @return the delay before the next attempt, or {@code -1} once the budget is spent
   */
  long next(long now, long connectedAt, boolean newEvents) {
    if (connectedAt >= 0) {
      // Only a connection that stayed up resets the backoff; one that brought new events also
      // shows the daemon is alive, so it restarts the reconnect budget.
      boolean stable = now - connectedAt >= STABLE_AFTER_NANOS;
      if (stable) {
        attempt = 0;
      }
      if (stable || newEvents) {
        downSince = 0;
        acceptedWhileDown = false;
      }
    }
    if (downSince == 0) {
      downSince = now;
    }
    attempt++;
    long delay = Math.min(MAX_RETRY_MS, retryMillis << Math.min(attempt - 1, 8));
    long down = TimeUnit.NANOSECONDS.toMillis(now - downSince);
    return down + delay > budgetMillis ? -1 : delay;
  }

  /**
   * Why the stream gave up, named by how the last attempt ended: a daemon that now refuses
   * connections is gone, even if it accepted one more while shutting down.
   */
  String giveUpReason(boolean lastAttemptConnected) {
    return acceptedWhileDown && lastAttemptConnected ? "stream_unstable" : "daemon_unreachable";
  }
}
