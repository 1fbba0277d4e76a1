package dev.companion4j.acp;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiffOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The agent's file calls in a companion: a write becomes a pending diff the user reviews like a
 * CLI's proposal ({@link Companion#propose}), unless the session's mode already lets the agent edit
 * without asking; what the user accepted, edits included, is what the store writes.
 */
public final class ReviewedFiles implements WorkspaceFiles {
  /** What the agent is told when the user rejects its write. */
  public static final String REJECTED = "The user rejected the edit";

  /** The modes in which the agents edit without asking (Qwen Code's and Gemini CLI's names). */
  private static final Set<String> EDITS_WITHOUT_ASKING =
      Set.of("auto-edit", "autoEdit", "auto", "yolo");

  private final WorkspaceFiles store;
  private final Supplier<Companion> reviewer;
  private final String proposerName;
  private final Supplier<String> mode;

  /**
   * @param store where reads come from and accepted writes go (the disk, or an editor's buffers)
   * @param reviewer the companion that shows the proposal now; null while none runs, which refuses
   *     the write
   * @param proposerName how the proposal is labelled, e.g. {@code qwen chat}
   * @param mode the session's mode now; empty or unknown asks
   */
  public ReviewedFiles(
      WorkspaceFiles store,
      Supplier<Companion> reviewer,
      String proposerName,
      Supplier<String> mode) {
    this.store = Objects.requireNonNull(store, "store");
    this.reviewer = Objects.requireNonNull(reviewer, "reviewer");
    this.proposerName = Objects.requireNonNull(proposerName, "proposerName");
    this.mode = Objects.requireNonNull(mode, "mode");
  }

  @Override
  public String read(Path file) throws IOException {
    return store.read(file);
  }

  /** The accepted text is stored on the thread that answered, as the agent waits for it. */
  @Override
  public CompletionStage<Void> write(Path file, String text) {
    if (EDITS_WITHOUT_ASKING.contains(mode.get())) {
      return store.write(file, text);
    }
    Companion companion = reviewer.get();
    if (companion == null || !companion.isRunning()) {
      return refused("The companion is not running, so the edit cannot be reviewed");
    }
    return companion
        .propose(proposerName, file, text)
        .thenCompose(
            outcome ->
                outcome instanceof DiffOutcome.Accepted accepted
                    ? store.write(file, accepted.content())
                    : refused(why(outcome)));
  }

  private static String why(DiffOutcome outcome) {
    if (outcome instanceof DiffOutcome.Rejected) {
      return REJECTED;
    }
    if (outcome instanceof DiffOutcome.Replaced) {
      return "The edit was replaced by a newer proposal for the same file";
    }
    if (outcome instanceof DiffOutcome.Stopped) {
      return "The companion stopped before the user answered";
    }
    return "The edit ended unanswered";
  }

  private static CompletableFuture<Void> refused(String why) {
    return CompletableFuture.failedFuture(new IOException(why));
  }
}
