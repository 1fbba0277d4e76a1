package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.internal.io.WorkspacePaths;
import dev.companion4j.wire.BadRequest;
import dev.companion4j.wire.JsonFields;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The diffs in review, each with its own id: opened by CLIs, shown by the host, answered by the
 * user. Every state change (open, replace, answer, close, a CLI leaving) is one step under one
 * lock, so each proposal ends exactly once; what follows from it (host calls, listener callbacks)
 * is queued on the engine executor in the same order. Outcomes go to the CLI session that asked,
 * and only to it, or to an in-process proposer's future. The engine never writes the user's file:
 * the proposer writes what was accepted.
 *
 * <p>A proposal ends without a notification in two documented cases: its CLI closed it with {@code
 * suppressNotification}, or its own CLI replaced it with a newer proposal for the same path (the
 * CLIs match outcomes by path, so the newer proposal's outcome answers both).
 */
public final class DiffBook {
  private static final Logger log = LoggerFactory.getLogger(DiffBook.class);

  /** How many ended proposals are remembered, so that a late answer learns why it came too late. */
  private static final int REMEMBERED = 4096;

  /** Where outcomes go; never blocks. */
  public interface Outcomes {
    /**
     * Sends {@code method} about {@code diff} to the CLI session that proposed it.
     *
     * @return false when the session is gone, so nobody will read it
     */
    boolean send(PendingDiff diff, String method, Map<String, Object> params);
  }

  /** Why a request could not be served; the message goes to the CLI verbatim. */
  public static final class DiffRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    public DiffRequestException(String message) {
      super(message);
    }
  }

  private final CompanionHost host;
  private final Supplier<List<Path>> roots;
  private final Outcomes outcomes;
  private final Executor engine;
  private final List<CompanionListener> listeners;
  private final Clock clock;
  private final ReviewedFiles files = new ReviewedFiles();

  // Guarded by this.
  private final Map<DiffId, Entry> byId = new LinkedHashMap<>();
  private final Map<String, Entry> byPath = new LinkedHashMap<>();
  private final Map<DiffId, DiffOutcome> ended = Remembered.newest(REMEMBERED);

  /** The id every in-process proposal has as its client: no CLI session has it. */
  private static final String IN_PROCESS = "in-process";

  /**
   * One proposal; {@code shown} and {@code opened} are read and written on the engine thread only.
   */
  private static final class Entry {
    final PendingDiff diff;

    /** Where an in-process proposal's outcome goes; null for a CLI's, which hears it by session. */
    final CompletableFuture<DiffOutcome> proposer;

    boolean shown;
    boolean opened;

    Entry(PendingDiff diff, CompletableFuture<DiffOutcome> proposer) {
      this.diff = diff;
      this.proposer = proposer;
    }
  }

  // Guarded by this: once stopped, nothing new is proposed, so nothing waits past the stop.
  private boolean stopped;

  /**
   * @param engine runs host calls and listener callbacks, one at a time, in order
   */
  public DiffBook(
      CompanionHost host,
      Supplier<List<Path>> roots,
      Outcomes outcomes,
      Executor engine,
      List<CompanionListener> listeners,
      Clock clock) {
    this.host = host;
    this.roots = roots;
    this.outcomes = outcomes;
    this.engine = engine;
    this.listeners = listeners;
    this.clock = clock;
  }

  /**
   * Handles the {@code openDiff} tool: validates and reads on the caller's thread, replaces any
   * proposal for the same path and has the host show the new one.
   *
   * @return completes once the host has shown it, or exceptionally with a {@link
   *     DiffRequestException} when it could not; cancelling it withdraws the proposal (its CLI
   *     heard it failed), and a view shown after all is closed again
   */
  public CompletableFuture<PendingDiff> open(String sessionId, String filePath, String newContent)
      throws DiffRequestException {
    return open(sessionId, filePath, newContent, null, null);
  }

  /**
   * An in-process proposer's edit: a pending diff like a CLI's, whose outcome completes the future
   * this returns, once, on the thread that ended the proposal. Cancelling the future withdraws the
   * proposal.
   *
   * @return completes exceptionally with a {@link DiffRequestException} when the host could not
   *     show it; with {@link DiffOutcome.Stopped} at once when the companion has stopped
   */
  public CompletableFuture<DiffOutcome> propose(
      String proposerName, String filePath, String newContent) throws DiffRequestException {
    CompletableFuture<DiffOutcome> outcome = new CompletableFuture<>();
    CompletableFuture<PendingDiff> shown =
        open(IN_PROCESS, filePath, newContent, proposerName, outcome);
    shown.whenComplete(
        (d, failure) -> {
          if (failure != null) {
            outcome.completeExceptionally(failure);
          }
        });
    return outcome;
  }

  private CompletableFuture<PendingDiff> open(
      String sessionId,
      String filePath,
      String newContent,
      String proposerName,
      CompletableFuture<DiffOutcome> proposer)
      throws DiffRequestException {
    Current now = current(filePath);
    PendingDiff diff =
        new PendingDiff(
            DiffId.random(),
            filePath,
            now.place().normal(),
            now.text(),
            newContent,
            clock.instant(),
            sessionId,
            proposerName);
    Entry entry = new Entry(diff, proposer);
    CompletableFuture<PendingDiff> shown = new CompletableFuture<>();
    withdrawOnCancel(shown, entry);
    if (proposer != null) {
      withdrawOnCancel(proposer, entry);
    }
    Entry replaced;
    boolean tooLate;
    synchronized (this) {
      tooLate = stopped;
      replaced = tooLate ? null : byPath.remove(filePath);
      if (replaced != null) {
        byId.remove(replaced.diff.id());
        end(replaced, new DiffOutcome.Replaced());
      }
      if (!tooLate) {
        byPath.put(filePath, entry);
        byId.put(diff.id(), entry);
        engine.execute(() -> show(entry, shown));
      }
    }
    if (tooLate) {
      if (proposer == null) {
        throw new DiffRequestException("The companion is stopping");
      }
      proposer.complete(new DiffOutcome.Stopped());
      shown.complete(diff);
      return shown;
    }
    if (replaced != null && replaced.proposer != null) {
      replaced.proposer.complete(new DiffOutcome.Replaced());
    } else if (replaced != null && !replaced.diff.clientId().equals(sessionId)) {
      // Another CLI is still waiting for an answer to its proposal; tell it no.
      outcomes.send(replaced.diff, "ide/diffRejected", Map.of("filePath", filePath));
    }
    return shown;
  }

  /**
   * Handles the {@code closeDiff} tool. A CLI closes only its own proposal: a path now under
   * another CLI's proposal is left alone.
   *
   * @return the proposed side's final text, or empty when this CLI had no diff open for the path
   */
  public CompletableFuture<Optional<String>> close(
      String sessionId, String filePath, boolean suppressNotification) throws DiffRequestException {
    validatePath(filePath);
    CompletableFuture<Optional<String>> result = new CompletableFuture<>();
    synchronized (this) {
      Entry entry = byPath.get(filePath);
      if (entry == null || !entry.diff.clientId().equals(sessionId)) {
        result.complete(Optional.empty());
        return result;
      }
      byPath.remove(filePath);
      byId.remove(entry.diff.id());
      // Remembered now, so an answer racing this close is refused; the text follows from the host.
      ended.put(entry.diff.id(), new DiffOutcome.ClosedByClient(entry.diff.newContent()));
      engine.execute(
          () -> {
            String content = closeView(entry).orElse(entry.diff.newContent());
            DiffOutcome outcome = new DiffOutcome.ClosedByClient(content);
            synchronized (this) {
              ended.replace(entry.diff.id(), outcome);
            }
            tellClosed(entry, outcome);
            if (!suppressNotification) {
              outcomes.send(entry.diff, "ide/diffRejected", Map.of("filePath", filePath));
            }
            result.complete(Optional.of(content));
          });
    }
    return result;
  }

  /**
   * The user accepted diff {@code id}; {@code content} is what the CLI writes, null for as
   * proposed.
   */
  public AnswerResult accept(DiffId id, String content) {
    return answer(id, content, true);
  }

  /** The user rejected diff {@code id}. */
  public AnswerResult reject(DiffId id) {
    return answer(id, null, false);
  }

  private AnswerResult answer(DiffId id, String content, boolean accepted) {
    Entry entry;
    DiffOutcome outcome;
    synchronized (this) {
      entry = byId.remove(id);
      if (entry == null) {
        DiffOutcome before = ended.get(id);
        return before == null ? new AnswerResult.Unknown() : new AnswerResult.Ended(before);
      }
      byPath.remove(entry.diff.filePath(), entry);
      outcome =
          accepted
              ? new DiffOutcome.Accepted(content == null ? entry.diff.newContent() : content)
              : new DiffOutcome.Rejected();
      end(entry, outcome);
    }
    if (entry.proposer != null) {
      // Already done only when its proposer cancelled it in this very moment: nobody hears then.
      if (entry.proposer.complete(outcome)) {
        return new AnswerResult.Sent(outcome);
      }
      synchronized (this) {
        ended.put(id, new DiffOutcome.ClientGone());
      }
      return new AnswerResult.Ended(new DiffOutcome.ClientGone());
    }
    Map<String, Object> params =
        outcome instanceof DiffOutcome.Accepted a
            ? Map.of("filePath", entry.diff.filePath(), "content", a.content())
            : Map.of("filePath", entry.diff.filePath());
    if (!outcomes.send(entry.diff, accepted ? "ide/diffAccepted" : "ide/diffRejected", params)) {
      synchronized (this) {
        ended.put(id, new DiffOutcome.ClientGone());
      }
      return new AnswerResult.Ended(new DiffOutcome.ClientGone());
    }
    return new AnswerResult.Sent(outcome);
  }

  private void withdrawOnCancel(CompletableFuture<?> waiting, Entry entry) {
    waiting.whenComplete(
        (result, failure) -> {
          if (failure instanceof CancellationException) {
            withdraw(entry);
          }
        });
  }

  /**
   * Ends a proposal whose proposer stopped waiting for it to be shown or answered; it counts as
   * rejected.
   */
  private synchronized void withdraw(Entry entry) {
    if (byId.remove(entry.diff.id(), entry)) {
      byPath.remove(entry.diff.filePath(), entry);
      end(entry, new DiffOutcome.Rejected());
    }
  }

  /** A CLI left: its proposals end, and nobody is told, since nobody could hear it. */
  public void clientGone(String sessionId) {
    synchronized (this) {
      List<Entry> gone = new ArrayList<>();
      byId.values().removeIf(e -> e.diff.clientId().equals(sessionId) && gone.add(e));
      for (Entry e : gone) {
        byPath.remove(e.diff.filePath(), e);
        end(e, new DiffOutcome.ClientGone());
      }
    }
  }

  /**
   * The companion stops: every proposal ends, each CLI hears its edit was rejected, each in-process
   * proposer gets {@link DiffOutcome.Stopped}, and nothing new is proposed after.
   */
  public void stopAll() {
    List<Entry> all;
    synchronized (this) {
      stopped = true;
      all = new ArrayList<>(byId.values());
      byId.clear();
      byPath.clear();
      all.forEach(e -> end(e, new DiffOutcome.Stopped()));
    }
    for (Entry e : all) {
      if (e.proposer != null) {
        e.proposer.complete(new DiffOutcome.Stopped());
      } else {
        outcomes.send(e.diff, "ide/diffRejected", Map.of("filePath", e.diff.filePath()));
      }
    }
  }

  public synchronized List<PendingDiff> pending() {
    return byId.values().stream().map(e -> e.diff).toList();
  }

  public synchronized Optional<PendingDiff> get(DiffId id) {
    Entry e = byId.get(id);
    return e == null ? Optional.empty() : Optional.of(e.diff);
  }

  /** The review handle the host gets for {@code id}. */
  public DiffReview review(DiffId id) {
    return new DiffReview() {
      @Override
      public DiffId diffId() {
        return id;
      }

      @Override
      public AnswerResult accept(String content) {
        return DiffBook.this.accept(id, content);
      }

      @Override
      public AnswerResult reject() {
        return DiffBook.this.reject(id);
      }

      @Override
      public String toString() {
        return "DiffReview{" + id + "}";
      }
    };
  }

  /** Records how {@code entry} ended and queues closing its view; the caller holds the lock. */
  private void end(Entry entry, DiffOutcome outcome) {
    ended.put(entry.diff.id(), outcome);
    engine.execute(
        () -> {
          closeView(entry);
          tellClosed(entry, outcome);
        });
  }

  /** On the engine thread. */
  private void show(Entry entry, CompletableFuture<PendingDiff> shown) {
    PendingDiff diff = entry.diff;
    synchronized (this) {
      if (byId.get(diff.id()) != entry) {
        // Replaced, answered or closed before its turn came: its end is already decided.
        shown.complete(diff);
        return;
      }
    }
    try {
      host.showDiff(diff, review(diff.id()));
    } catch (DiffViewException | RuntimeException e) {
      boolean stillPending;
      synchronized (this) {
        stillPending = byId.remove(diff.id(), entry);
        if (stillPending) {
          byPath.remove(diff.filePath(), entry);
        }
      }
      if (stillPending) {
        shown.completeExceptionally(
            new DiffRequestException(
                e instanceof DiffViewException refused && refused.getMessage() != null
                    ? "The editor could not show the diff for "
                        + diff.filePath()
                        + ": "
                        + refused.getMessage()
                    : "The editor failed to show the diff for "
                        + diff.filePath()
                        + "; its log says why"));
        if (!(e instanceof DiffViewException)) {
          log.warn("The editor failed to show the diff for {}", diff.filePath(), e);
        }
      } else {
        // It was answered while being shown; that answer is the CLI's outcome.
        shown.complete(diff);
      }
      return;
    }
    entry.shown = true;
    entry.opened = true;
    listeners.forEach(l -> l.diffOpened(diff));
    shown.complete(diff);
  }

  /** On the engine thread: the host closes its view once, if it ever showed one. */
  private Optional<String> closeView(Entry entry) {
    if (!entry.shown) {
      return Optional.empty();
    }
    entry.shown = false;
    try {
      return host.closeDiff(entry.diff);
    } catch (RuntimeException e) {
      log.warn(
          "The editor failed to close the diff for {}: {}", entry.diff.filePath(), e.toString());
      return Optional.empty();
    }
  }

  /** On the engine thread: listeners hear of the end of every diff they heard open. */
  private void tellClosed(Entry entry, DiffOutcome outcome) {
    if (entry.opened) {
      entry.opened = false;
      listeners.forEach(l -> l.diffClosed(entry.diff, outcome));
    }
  }

  /** A file as a proposal finds it: where its path leads, and its text (empty if it is absent). */
  record Current(WorkspacePaths.Place place, String text) {}

  /**
   * Checks {@code filePath} as for {@code openDiff} and reads its text now, on the reading pool
   * within its deadline: the one check every proposal of the engine makes.
   */
  Current current(String filePath) throws DiffRequestException {
    WorkspacePaths.Place place = place(filePath);
    return new Current(place, place.exists() ? files.readOriginal(place.real(), filePath) : "");
  }

  /**
   * Where a proposal's path leads; it must stay inside the roots all the way, every link followed.
   */
  private WorkspacePaths.Place place(String filePath) throws DiffRequestException {
    try {
      return WorkspacePaths.resolve(absolute(filePath), roots.get());
    } catch (WorkspacePaths.RefusedException e) {
      throw new DiffRequestException(
          switch (e.why()) {
                case OUTSIDE -> "filePath is outside every workspace root: ";
                case LEADS_OUTSIDE -> "filePath resolves to a place outside every workspace root: ";
                case DANGLING_LINK ->
                    "filePath passes through a symbolic link that leads nowhere: ";
                case AMBIGUOUS_DOT_DOT ->
                    "filePath has '..' after a symbolic link, so it names another file than it reads as; "
                        + "give it without '..': ";
                case UNRESOLVABLE ->
                    "filePath cannot be followed: a part of it is not a folder, or may not be read: ";
              }
              + filePath);
    }
  }

  /**
   * A path a CLI may close: inside the roots as written; where it leads was checked when it was
   * proposed.
   */
  private void validatePath(String filePath) throws DiffRequestException {
    if (!WorkspacePaths.inside(absolute(filePath).normalize(), roots.get())) {
      throw new DiffRequestException("filePath is outside every workspace root: " + filePath);
    }
  }

  private static Path absolute(String filePath) throws DiffRequestException {
    if (filePath == null || filePath.isBlank()) {
      throw new DiffRequestException("filePath is required");
    }
    try {
      return JsonFields.absolutePath("filePath", filePath);
    } catch (BadRequest e) {
      throw new DiffRequestException(e.getMessage());
    }
  }
}
