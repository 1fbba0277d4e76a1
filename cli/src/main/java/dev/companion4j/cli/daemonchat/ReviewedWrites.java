package dev.companion4j.cli.daemonchat;

import dev.companion4j.acp.WorkspaceFiles;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiffOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The ACP agent's file calls in a companion: a write becomes a pending diff the user reviews like a
 * CLI's proposal, unless the session's mode already lets the agent edit without asking. Reads come
 * from disk: a headless companion has no editor buffers.
 */
final class ReviewedWrites implements WorkspaceFiles {
  static final String REJECTED = "The user rejected the edit";

  /** The modes in which the agents edit without asking (Qwen Code's and Gemini CLI's names). */
  private static final Set<String> EDITS_WITHOUT_ASKING =
      Set.of("auto-edit", "autoEdit", "auto", "yolo");

  private final WorkspaceFiles disk = WorkspaceFiles.disk();
  private final Companion companion;
  private final String proposerName;
  private final Supplier<String> mode;

  /**
   * @param mode the session's mode now; empty or unknown asks
   */
  ReviewedWrites(Companion companion, String proposerName, Supplier<String> mode) {
    this.companion = companion;
    this.proposerName = proposerName;
    this.mode = mode;
  }

  @Override
  public String read(Path file) throws IOException {
    return disk.read(file);
  }

  /** The accepted text is written on the thread that answered, as the agent waits for it. */
  @Override
  public CompletionStage<Void> write(Path file, String text) {
    if (EDITS_WITHOUT_ASKING.contains(mode.get())) {
      return disk.write(file, text);
    }
    return companion
        .propose(proposerName, file, text)
        .thenCompose(
            outcome ->
                outcome instanceof DiffOutcome.Accepted accepted
                    ? disk.write(file, accepted.content())
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
