package dev.companion4j.daemon;

import java.util.concurrent.CompletableFuture;

/**
 * A prompt the daemon accepted. Its events arrive through the session's listener; {@link #result()}
 * completes after the listener has seen the turn's last event.
 */
public final class PromptTurn {
  private final String promptId;
  private final CompletableFuture<TurnResult> result;

  PromptTurn(String promptId, CompletableFuture<TurnResult> result) {
    this.promptId = promptId;
    this.result = result.copy();
  }

  /** The daemon's id of this prompt, also in {@link EventMeta#promptId()} of its events. */
  public String promptId() {
    return promptId;
  }

  /** Completes when the turn ends, in whatever way (see {@link TurnResult.Outcome}). */
  public CompletableFuture<TurnResult> result() {
    return result;
  }

  @Override
  public String toString() {
    return "PromptTurn[" + promptId + "]";
  }
}
