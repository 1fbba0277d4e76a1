package dev.companion4j.engine;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * An edit a CLI or an in-process proposer proposed and nobody has answered yet.
 *
 * @param id this proposal's identity; answers name it
 * @param filePath the path exactly as the CLI sent it; the CLI matches outcomes by this string
 * @param path the same path, normalised
 * @param originalContent the file's text when the diff opened; empty for a new file
 * @param newContent the text the CLI proposes
 * @param openedAt when the CLI asked
 * @param clientId the CLI session that asked, the outcome goes to it alone; for an in-process
 *     proposer, an id of its own that no CLI session has
 * @param proposerName the in-process proposer's name (see {@link Companion#propose}), or null for a
 *     CLI's proposal, whose name comes from its connection
 */
public record PendingDiff(
    DiffId id,
    String filePath,
    Path path,
    String originalContent,
    String newContent,
    Instant openedAt,
    String clientId,
    String proposerName) {
  public PendingDiff {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(filePath, "filePath");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(originalContent, "originalContent");
    Objects.requireNonNull(newContent, "newContent");
    Objects.requireNonNull(openedAt, "openedAt");
    Objects.requireNonNull(clientId, "clientId");
  }

  /** Whether the file does not exist yet, so accepting creates it. */
  public boolean isNewFile() {
    return originalContent.isEmpty() && !path.toFile().exists();
  }

  /** Names the proposal, never its text: that is the user's code. */
  @Override
  public String toString() {
    return "PendingDiff{id=" + id + ", filePath=" + filePath + ", clientId=" + clientId + "}";
  }
}
