package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.ChangeAnswer;
import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.internal.diff.DiffBook.DiffRequestException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes of several files in review, each one unit with its own id, proposed in-process and
 * answered once for all of its files. Every state change (propose, answer, withdraw, stop) is one
 * step under one lock, so each change ends exactly once; what follows (the host closing its view,
 * listeners) is queued on the engine executor in the same order, and the proposer's future is
 * completed after the lock is released. The engine writes no file: the proposer writes what was
 * accepted.
 *
 * <p>Files are checked and read as {@code openDiff}'s are ({@link DiffBook#current}). An accept
 * reads every file again first: one that changed on disk since the proposal (or can no longer be
 * read as then) ends the change as {@link ChangeOutcome.ChangedOnDisk}, and nothing is written.
 */
public final class ChangeBook {
  private static final Logger log = LoggerFactory.getLogger(ChangeBook.class);

  /** The most files one change holds; a rename beyond it is refused with a reason. */
  static final int MAX_FILES = 500;

  /** The most text one change holds, both sides of every file together, in UTF-16 units. */
  static final long MAX_CHARACTERS = 64L * 1024 * 1024;

  /** How many ended changes are remembered, so that a late answer learns why it came too late. */
  private static final int REMEMBERED = 1024;

  private final DiffBook files;
  private final CompanionHost host;
  private final Executor engine;
  private final List<CompanionListener> listeners;
  private final Clock clock;

  // Guarded by this.
  private final Map<DiffId, Entry> byId = new LinkedHashMap<>();
  private final Map<DiffId, ChangeOutcome> ended = Remembered.newest(REMEMBERED);

  // Guarded by this: once stopped, nothing new is proposed, so nothing waits past the stop.
  private boolean stopped;

  /** One change; {@code shown} is read and written on the engine thread only. */
  private static final class Entry {
    final PendingChange change;
    final CompletableFuture<ChangeOutcome> proposer = new CompletableFuture<>();
    boolean shown;

    Entry(PendingChange change) {
      this.change = change;
    }
  }

  /**
   * @param files checks and reads each file as for a diff
   * @param engine runs host calls and listener callbacks, one at a time, in order
   */
  public ChangeBook(
      DiffBook files,
      CompanionHost host,
      Executor engine,
      List<CompanionListener> listeners,
      Clock clock) {
    this.files = files;
    this.host = host;
    this.engine = engine;
    this.listeners = listeners;
    this.clock = clock;
  }

  /**
   * Validates and reads every file on the caller's thread, records the change and has the host show
   * it.
   *
   * @param id the change's identity, new
   * @param proposed each file's proposed whole text, by absolute path, in the order to show
   * @return completes once with the outcome, on the thread that ended the change; exceptionally
   *     with a {@link DiffViewException} when the host could not show it; with {@link
   *     ChangeOutcome.Stopped} at once after a stop. Cancelling it withdraws the change.
   * @throws DiffRequestException when a file is refused, named twice, or the change is too large
   */
  public CompletableFuture<ChangeOutcome> propose(
      DiffId id, String proposerName, Map<Path, String> proposed) throws DiffRequestException {
    if (proposed.isEmpty()) {
      throw new DiffRequestException("A change needs at least one file");
    }
    if (proposed.size() > MAX_FILES) {
      throw new DiffRequestException(
          "A change holds at most " + MAX_FILES + " files; this one has " + proposed.size());
    }
    List<PendingChange.File> read = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    long characters = 0;
    for (Map.Entry<Path, String> file : proposed.entrySet()) {
      DiffBook.Current now = files.current(file.getKey().toString());
      Path path = now.place().normal();
      if (!seen.add(path)) {
        throw new DiffRequestException("The change names a file twice: " + path);
      }
      characters += now.text().length() + (long) file.getValue().length();
      if (characters > MAX_CHARACTERS) {
        throw new DiffRequestException(
            "The change holds more than " + MAX_CHARACTERS + " characters, the most reviewed");
      }
      read.add(new PendingChange.File(path, now.place().exists(), now.text(), file.getValue()));
    }
    Entry entry = new Entry(new PendingChange(id, proposerName, clock.instant(), read));
    entry.proposer.whenComplete(
        (outcome, failure) -> {
          if (failure instanceof CancellationException) {
            withdraw(entry);
          }
        });
    boolean tooLate;
    synchronized (this) {
      tooLate = stopped;
      if (!tooLate) {
        byId.put(entry.change.id(), entry);
        engine.execute(() -> show(entry));
      }
    }
    if (tooLate) {
      entry.proposer.complete(new ChangeOutcome.Stopped());
    }
    return entry.proposer;
  }

  /**
   * The user accepted change {@code id}; {@code edited} holds the whole text of each file the user
   * edited. Every file is read again first, on this thread.
   *
   * @throws IllegalArgumentException when {@code edited} names a file the change does not hold, or
   *     a null text; the change stays pending
   */
  public ChangeAnswer accept(DiffId id, Map<Path, String> edited) {
    Entry entry;
    synchronized (this) {
      entry = byId.get(id);
      if (entry == null) {
        return endedOrUnknown(id);
      }
    }
    Map<Path, String> contents = contents(entry.change, edited);
    List<Path> changed = changedOnDisk(entry.change);
    return decide(
        entry,
        changed.isEmpty()
            ? new ChangeOutcome.Accepted(contents)
            : new ChangeOutcome.ChangedOnDisk(changed));
  }

  /** The user rejected change {@code id}. */
  public ChangeAnswer reject(DiffId id) {
    Entry entry;
    synchronized (this) {
      entry = byId.get(id);
      if (entry == null) {
        return endedOrUnknown(id);
      }
    }
    return decide(entry, new ChangeOutcome.Rejected());
  }

  /** Ends {@code entry} with {@code outcome} unless another answer ended it first. */
  private ChangeAnswer decide(Entry entry, ChangeOutcome outcome) {
    DiffId id = entry.change.id();
    synchronized (this) {
      if (!byId.remove(id, entry)) {
        return endedOrUnknown(id);
      }
      end(entry, outcome);
    }
    if (entry.proposer.complete(outcome)) {
      return new ChangeAnswer.Decided(outcome);
    }
    // Its proposer cancelled it in this very moment: nobody writes, so it counts as withdrawn.
    ChangeOutcome withdrawn = new ChangeOutcome.Rejected();
    synchronized (this) {
      ended.put(id, withdrawn);
    }
    return new ChangeAnswer.Ended(withdrawn);
  }

  private ChangeAnswer endedOrUnknown(DiffId id) {
    ChangeOutcome before = ended.get(id);
    return before == null ? new ChangeAnswer.Unknown() : new ChangeAnswer.Ended(before);
  }

  /** Each file's text to write: the user's edit where given, else the proposal. */
  private static Map<Path, String> contents(PendingChange change, Map<Path, String> edited) {
    Map<Path, String> contents = new LinkedHashMap<>();
    change.files().forEach(f -> contents.put(f.path(), f.newContent()));
    for (Map.Entry<Path, String> e : edited.entrySet()) {
      Path path = e.getKey().toAbsolutePath().normalize();
      if (!contents.containsKey(path)) {
        throw new IllegalArgumentException(
            "change " + change.id() + " holds no file " + e.getKey());
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("the text of " + e.getKey() + " is missing");
      }
      contents.put(path, e.getValue());
    }
    return contents;
  }

  /**
   * The files whose disk state is not what the change was proposed on: changed, created, deleted,
   * or no longer readable as then (which fails closed: nothing is written).
   */
  private List<Path> changedOnDisk(PendingChange change) {
    List<Path> changed = new ArrayList<>();
    for (PendingChange.File file : change.files()) {
      try {
        DiffBook.Current now = files.current(file.path().toString());
        if (now.place().exists() != file.existed() || !now.text().equals(file.originalContent())) {
          changed.add(file.path());
        }
      } catch (DiffRequestException e) {
        changed.add(file.path());
      }
    }
    return changed;
  }

  /** Ends a change whose proposer stopped waiting for it; it counts as rejected. */
  private synchronized void withdraw(Entry entry) {
    if (byId.remove(entry.change.id(), entry)) {
      end(entry, new ChangeOutcome.Rejected());
    }
  }

  /**
   * The companion stops: every change ends as {@link ChangeOutcome.Stopped}, and nothing new is
   * proposed after.
   */
  public void stopAll() {
    List<Entry> all;
    synchronized (this) {
      stopped = true;
      all = new ArrayList<>(byId.values());
      byId.clear();
      all.forEach(e -> end(e, new ChangeOutcome.Stopped()));
    }
    all.forEach(e -> e.proposer.complete(new ChangeOutcome.Stopped()));
  }

  public synchronized List<PendingChange> pending() {
    return byId.values().stream().map(e -> e.change).toList();
  }

  public synchronized Optional<PendingChange> get(DiffId id) {
    Entry e = byId.get(id);
    return e == null ? Optional.empty() : Optional.of(e.change);
  }

  /** The review handle the host gets for {@code id}. */
  private ChangeReview review(DiffId id) {
    return new ChangeReview() {
      @Override
      public DiffId changeId() {
        return id;
      }

      @Override
      public ChangeAnswer accept(Map<Path, String> edited) {
        return ChangeBook.this.accept(id, edited);
      }

      @Override
      public ChangeAnswer reject() {
        return ChangeBook.this.reject(id);
      }

      @Override
      public String toString() {
        return "ChangeReview{" + id + "}";
      }
    };
  }

  /** Records how {@code entry} ended and queues closing its view; the caller holds the lock. */
  private void end(Entry entry, ChangeOutcome outcome) {
    ended.put(entry.change.id(), outcome);
    engine.execute(
        () -> {
          if (!entry.shown) {
            return;
          }
          entry.shown = false;
          try {
            host.closeChange(entry.change);
          } catch (RuntimeException e) {
            log.warn("The editor failed to close change {}: {}", entry.change.id(), e.toString());
          }
          listeners.forEach(l -> l.changeClosed(entry.change, outcome));
        });
  }

  /** On the engine thread. */
  private void show(Entry entry) {
    PendingChange change = entry.change;
    synchronized (this) {
      if (byId.get(change.id()) != entry) {
        // Withdrawn or stopped before its turn came: its end is already decided.
        return;
      }
    }
    try {
      host.showChange(change, review(change.id()));
    } catch (DiffViewException | RuntimeException e) {
      boolean stillPending;
      synchronized (this) {
        stillPending = byId.remove(change.id(), entry);
      }
      if (stillPending) {
        entry.proposer.completeExceptionally(
            e instanceof DiffViewException refused && refused.getMessage() != null
                ? refused
                : new DiffViewException("The editor failed to show the change; its log says why"));
        if (!(e instanceof DiffViewException)) {
          log.warn("The editor failed to show change {}", change.id(), e);
        }
      }
      return;
    }
    entry.shown = true;
    listeners.forEach(l -> l.changeOpened(change));
  }
}
