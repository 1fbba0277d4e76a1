package dev.companion4j.cli;

import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The host without an editor window: diffs wait in the editor API until a page or an editor hook
 * answers them by id, or the user answers in the terminal.
 */
final class HeadlessHost implements CompanionHost {
  private final IdeInfo ideInfo;
  private final List<Path> roots;

  HeadlessHost(IdeInfo ideInfo, List<Path> roots) {
    this.ideInfo = ideInfo;
    this.roots = List.copyOf(roots);
  }

  @Override
  public IdeInfo ideInfo() {
    return ideInfo;
  }

  @Override
  public List<Path> workspaceRoots() {
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) {
    // Listed by the editor API and announced on its event stream, which answers through
    // Companion.acceptDiff/rejectDiff by id; nothing to open here.
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return Optional.empty();
  }
}
