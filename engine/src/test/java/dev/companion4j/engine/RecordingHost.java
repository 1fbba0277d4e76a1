package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A host that remembers what the engine asked of it; stands in for an editor's windows. */
final class RecordingHost implements CompanionHost {
  final List<PendingDiff> shown = new CopyOnWriteArrayList<>();
  final List<PendingDiff> closed = new CopyOnWriteArrayList<>();
  volatile List<Path> roots;
  volatile String refuseWith;
  volatile String editedText;

  RecordingHost(Path... roots) {
    this.roots = List.of(roots);
  }

  @Override
  public IdeInfo ideInfo() {
    return new IdeInfo("testide", "Test IDE");
  }

  @Override
  public List<Path> workspaceRoots() {
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff) throws DiffViewException {
    if (refuseWith != null) {
      throw new DiffViewException(refuseWith);
    }
    shown.add(diff);
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    closed.add(diff);
    return Optional.ofNullable(editedText);
  }
}
