package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A host that remembers what the engine asked of it; stands in for an editor's windows. */
final class RecordingHost implements CompanionHost {
  final List<PendingDiff> shown = new CopyOnWriteArrayList<>();
  final List<PendingDiff> closed = new CopyOnWriteArrayList<>();
  final Map<DiffId, DiffReview> reviews = new ConcurrentHashMap<>();

  /** The threads host calls ran on; the contract says only the engine thread. */
  final List<String> threads = new CopyOnWriteArrayList<>();

  volatile List<Path> roots;
  volatile String refuseWith;

  /** Thrown by {@link #showDiff}, as a host with a bug would. */
  volatile RuntimeException crashWith;

  volatile String editedText;

  /** While set and not counted down, {@link #showDiff} waits for it: a host slow to show. */
  volatile CountDownLatch showHeld;

  /** Read once, when the companion is built. */
  volatile Set<HostFeature> features = Set.of();

  /** The places {@link #openFile} was asked to show, as {@code path:line:character}. */
  final List<String> opened = new CopyOnWriteArrayList<>();

  volatile String refuseOpenWith;

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
  public void showDiff(PendingDiff diff, DiffReview review) throws DiffViewException {
    threads.add(Thread.currentThread().getName());
    CountDownLatch held = showHeld;
    if (held != null) {
      try {
        held.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (refuseWith != null) {
      throw new DiffViewException(refuseWith);
    }
    if (crashWith != null) {
      throw crashWith;
    }
    shown.add(diff);
    reviews.put(diff.id(), review);
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    threads.add(Thread.currentThread().getName());
    closed.add(diff);
    return Optional.ofNullable(editedText);
  }

  final List<PendingChange> shownChanges = new CopyOnWriteArrayList<>();
  final List<PendingChange> closedChanges = new CopyOnWriteArrayList<>();
  final Map<DiffId, ChangeReview> changeReviews = new ConcurrentHashMap<>();

  /** Off: the host keeps the default, which cannot show a change of several files. */
  volatile boolean showsChanges = true;

  @Override
  public void showChange(PendingChange change, ChangeReview review) throws DiffViewException {
    threads.add(Thread.currentThread().getName());
    if (!showsChanges) {
      CompanionHost.super.showChange(change, review);
    }
    shownChanges.add(change);
    changeReviews.put(change.id(), review);
  }

  @Override
  public void closeChange(PendingChange change) {
    threads.add(Thread.currentThread().getName());
    closedChanges.add(change);
  }

  @Override
  public Set<HostFeature> features() {
    return features;
  }

  @Override
  public String openFile(Path path, int line, int character) throws HostActionException {
    threads.add(Thread.currentThread().getName());
    if (refuseOpenWith != null) {
      throw new HostActionException(refuseOpenWith);
    }
    opened.add(path + ":" + line + ":" + character);
    return "Opened " + path.getFileName() + " at line " + line + ".";
  }
}
