package dev.companion4j.netbeans;

import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingDiff;
import java.awt.EventQueue;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.loaders.DataObjectNotFoundException;

/**
 * The diff windows of one companion, keyed by the id of the proposal each shows. {@link #show} and
 * {@link #close} run on the engine thread; the windows live on the EDT.
 */
final class DiffWindows {
  private static final Logger LOG = Logger.getLogger(DiffWindows.class.getName());

  /**
   * How long showing a diff waits for the EDT. The CLI waits for the window; a busy EDT, or one
   * that is stopping the companion and so waits for the engine thread, must not make it wait long.
   */
  private static final long EDT_WAIT_SECONDS = 5;

  /**
   * The proposals under review: in here from showDiff until answered or closed, whichever first.
   */
  private final Map<DiffId, Review> reviews = new ConcurrentHashMap<>();

  /** One proposal's review; {@code window} is set and read on the EDT only. */
  private static final class Review {
    final ProposalDocument proposal;
    DiffTopComponent window;

    Review(ProposalDocument proposal) {
      this.proposal = proposal;
    }
  }

  void show(PendingDiff diff, DiffReview answers) throws DiffViewException {
    // Preparing both sides' documents reads no user file and may take a moment: not on the EDT.
    ProposalDocument proposal;
    try {
      proposal = ProposalDocument.create(diff);
    } catch (IOException e) {
      throw new DiffViewException("could not prepare the proposal: " + e.getMessage(), e);
    }
    OriginalSource before = OriginalSource.of(diff, proposal.mimeType());
    Review review = new Review(proposal);
    reviews.put(diff.id(), review);
    EditorCookie fileEditor = editorOf(diff.path());
    openOnEdt(
        () ->
            review.window =
                DiffTopComponent.open(
                    diff, before, proposal, answers, fileEditor, () -> reviews.remove(diff.id())),
        () -> {
          reviews.remove(diff.id());
          proposal.discard();
        },
        "diff window");
  }

  /**
   * Runs {@code open} on the EDT and waits for it {@link #EDT_WAIT_SECONDS} at most: the proposer
   * hears of a window that failed to open, and need not wait for one the EDT has not got to yet.
   *
   * @param undo runs when opening failed
   * @param window names the window, for the proposer and the log
   * @throws DiffViewException when opening failed
   */
  static void openOnEdt(Runnable open, Runnable undo, String window) throws DiffViewException {
    CompletableFuture<Void> opened = new CompletableFuture<>();
    EventQueue.invokeLater(
        () -> {
          try {
            open.run();
            opened.complete(null);
          } catch (RuntimeException | Error e) {
            opened.completeExceptionally(e);
          }
        });
    try {
      opened.get(EDT_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      undo.run();
      Throwable cause = e.getCause();
      throw new DiffViewException("NetBeans could not open the " + window + ": " + cause, cause);
    } catch (TimeoutException e) {
      // The window opens when the EDT gets to it; the proposer need not wait for that.
      LOG.fine("A " + window + " is still being opened");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Closes the window of {@code diff} without an answer and returns its right side's text; empty
   * when the user answered already (the window then closed itself). Never waits for the EDT: the
   * text is read under the document's lock here, and the window closes when the EDT gets to it,
   * after its own opening, which was queued first.
   */
  Optional<String> close(PendingDiff diff) {
    Review review = reviews.remove(diff.id());
    if (review == null) {
      return Optional.empty();
    }
    String text = review.proposal.text();
    EventQueue.invokeLater(
        () -> {
          if (review.window != null) {
            review.window.closeWithoutAnswer();
          }
        });
    return Optional.of(text);
  }

  /** The editor support of the file when NetBeans already has it loaded; null otherwise. */
  static EditorCookie editorOf(Path path) {
    File file = path.toFile();
    if (!file.isFile()) {
      return null;
    }
    FileObject fo = FileUtil.toFileObject(FileUtil.normalizeFile(file));
    if (fo == null) {
      return null;
    }
    try {
      return DataObject.find(fo).getLookup().lookup(EditorCookie.class);
    } catch (DataObjectNotFoundException e) {
      return null;
    }
  }
}
