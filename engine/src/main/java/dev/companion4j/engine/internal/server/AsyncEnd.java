package dev.companion4j.engine.internal.server;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/** Runs one action when an async request ends, however it ends. */
public final class AsyncEnd implements AsyncListener {
  private final Runnable action;

  private AsyncEnd(Runnable action) {
    this.action = action;
  }

  /** Calls {@code action} when {@code async} completes, times out or fails. */
  public static void onEnd(AsyncContext async, Runnable action) {
    async.addListener(new AsyncEnd(action));
  }

  @Override
  public void onComplete(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onError(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    // A restarted request ends later; the listener must then be added again by its owner.
  }
}
