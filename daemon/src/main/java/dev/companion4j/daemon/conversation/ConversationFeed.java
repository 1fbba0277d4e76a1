package dev.companion4j.daemon.conversation;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One connection's conversation and the front end told of it: each change is one step under a lock,
 * and the listener hears each new conversation on a thread of the feed's own, one call at a time,
 * in the order the changes came about. So a slow listener delays only later calls, never the events
 * that change the conversation. Both chat connections keep theirs here.
 */
public final class ConversationFeed implements AutoCloseable {
  private final Consumer<Conversation> listener;
  private final ExecutorService calls;

  // Guarded by this.
  private Conversation conversation;

  /**
   * @param threadName the name of the listener's thread
   */
  public ConversationFeed(String threadName, Conversation first, Consumer<Conversation> listener) {
    this.conversation = Objects.requireNonNull(first, "first");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.calls =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /** The conversation as it is now. */
  public synchronized Conversation conversation() {
    return conversation;
  }

  /** Applies {@code step}; the listener hears the result unless it is the same conversation. */
  public synchronized void change(UnaryOperator<Conversation> step) {
    Conversation now = step.apply(conversation);
    if (now == conversation) {
      return;
    }
    conversation = now;
    // Queued in the same step, so calls keep the order of the changes.
    tell(() -> listener.accept(now));
  }

  /**
   * Runs {@code call} on the listener's thread, after the calls queued so far; none once closed.
   */
  public synchronized void tell(Runnable call) {
    if (!calls.isShutdown()) {
      calls.execute(call);
    }
  }

  /** No more calls; those queued still run. */
  @Override
  public synchronized void close() {
    calls.shutdown();
  }
}
