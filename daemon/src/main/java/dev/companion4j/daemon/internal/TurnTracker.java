package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.TurnResult;
import dev.companion4j.daemon.TurnResult.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Matches turn-ending events to the prompts that started them.
 *
 * <p>The daemon answers a prompt with 202 and its id, and the turn's end arrives on the event
 * stream, possibly before the 202 has been read. So ended turns are remembered (a bounded number)
 * until their prompt registers.
 */
public final class TurnTracker {
  private static final int REMEMBERED = 256;

  private final Map<String, CompletableFuture<TurnResult>> pending = new HashMap<>();
  private final Map<String, TurnResult> ended =
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TurnResult> eldest) {
          return size() > REMEMBERED;
        }
      };
  private String sessionEndReason;

  /** The future of a prompt's turn; already complete when the turn or the session has ended. */
  public synchronized CompletableFuture<TurnResult> register(String promptId) {
    TurnResult result = ended.remove(promptId);
    if (result != null) {
      return CompletableFuture.completedFuture(result);
    }
    if (sessionEndReason != null) {
      return CompletableFuture.completedFuture(
          new TurnResult(promptId, Outcome.SESSION_ENDED, null, sessionEndReason));
    }
    return pending.computeIfAbsent(promptId, id -> new CompletableFuture<>());
  }

  /** Feeds an event after the listener has seen it. */
  public void onEvent(DaemonEvent event) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      String promptId = event.meta().promptId();
      if (event instanceof TurnComplete complete && promptId != null) {
        Outcome outcome =
            "cancelled".equals(complete.stopReason()) ? Outcome.CANCELLED : Outcome.COMPLETED;
        finish(new TurnResult(promptId, outcome, complete.stopReason(), null), completions);
      } else if (event instanceof TurnError error && promptId != null) {
        finish(new TurnResult(promptId, Outcome.FAILED, null, error.message()), completions);
      } else if (event instanceof SessionDied died) {
        endSession("session died: " + died.reason(), completions);
      } else if (event instanceof SessionClosed closed) {
        endSession("session closed: " + closed.reason(), completions);
      }
    }
    completions.forEach(Runnable::run);
  }

  /** Ends every open turn, e.g. when the client gives up on the connection. */
  public void endSession(String reason) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      endSession(reason, completions);
    }
    completions.forEach(Runnable::run);
  }

  private void finish(TurnResult result, List<Runnable> completions) {
    CompletableFuture<TurnResult> future = pending.remove(result.promptId());
    if (future != null) {
      completions.add(() -> future.complete(result));
    } else {
      ended.put(result.promptId(), result);
    }
  }

  private void endSession(String reason, List<Runnable> completions) {
    if (sessionEndReason == null) {
      sessionEndReason = reason;
    }
    pending.forEach(
        (id, future) ->
            completions.add(
                () -> future.complete(new TurnResult(id, Outcome.SESSION_ENDED, null, reason))));
    pending.clear();
  }
}
