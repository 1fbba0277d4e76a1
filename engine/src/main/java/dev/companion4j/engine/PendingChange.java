package dev.companion4j.engine;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A change of several files proposed as one unit (e.g. a rename the editor's refactoring computed)
 * that nobody has answered yet: the user sees every file and decides once for all of them.
 *
 * @param id this change's identity; answers name it
 * @param proposerName who proposed it (see {@link Companion#proposeChange})
 * @param openedAt when it was proposed
 * @param files each file's current and proposed text, in the order proposed; never empty
 */
public record PendingChange(DiffId id, String proposerName, Instant openedAt, List<File> files) {
  public PendingChange {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(proposerName, "proposerName");
    Objects.requireNonNull(openedAt, "openedAt");
    files = List.copyOf(files);
    if (files.isEmpty()) {
      throw new IllegalArgumentException("a change has at least one file");
    }
  }

  /**
   * One file of a change.
   *
   * @param path absolute and normalised, inside a workspace root
   * @param existed whether the file existed when the change was proposed; if not, accepting creates
   *     it
   * @param originalContent its text then; empty for a file that did not exist
   * @param newContent the text proposed for it
   */
  public record File(Path path, boolean existed, String originalContent, String newContent) {
    public File {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(originalContent, "originalContent");
      Objects.requireNonNull(newContent, "newContent");
    }

    /** Names the file, never its text: that is the user's code. */
    @Override
    public String toString() {
      return "File{" + path + "}";
    }
  }

  /** Names the change and its files, never their text. */
  @Override
  public String toString() {
    return "PendingChange{id=" + id + ", proposer=" + proposerName + ", files=" + files + "}";
  }
}
