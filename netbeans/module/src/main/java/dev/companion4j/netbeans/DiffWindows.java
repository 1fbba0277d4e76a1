package dev.companion4j.netbeans;

import dev.companion4j.engine.Companion;
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
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.loaders.DataObjectNotFoundException;

/** The open diff windows of one companion, keyed by the proposal they show. */
final class DiffWindows {
  private static final Logger LOG = Logger.getLogger(DiffWindows.class.getName());
  /** The CLI waits for openDiff/closeDiff answers; a busy EDT must not make it wait forever. */
  private static final long EDT_WAIT_SECONDS = 5;

  private final Map<PendingDiff, DiffTopComponent> windows = new ConcurrentHashMap<>();
  private volatile Companion companion;

  void bind(Companion companion) {
    this.companion = companion;
  }

  void show(PendingDiff diff) throws DiffViewException {
    Companion c = companion;
    if (c == null) {
      throw new DiffViewException("the NetBeans companion is not ready");
    }
    // Preparing the proposal's document reads no user file and may take a moment: not on the EDT.
    ProposalDocument proposal;
    try {
      proposal = ProposalDocument.create(diff);
    } catch (IOException e) {
      throw new DiffViewException("could not prepare the proposal: " + e.getMessage(), e);
    }
    EditorCookie fileEditor = editorOf(diff.path());
    CompletableFuture<Void> opened = onEdt(() -> {
      DiffTopComponent window = DiffTopComponent.open(diff, proposal, c, fileEditor, () -> windows.remove(diff));
      windows.put(diff, window);
      return null;
    });
    try {
      opened.get(EDT_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      proposal.discard();
      throw new DiffViewException("NetBeans could not open the diff window: " + cause, cause);
    } catch (TimeoutException e) {
      // The window opens when the EDT gets to it; the CLI need not wait for that.
      LOG.fine("Diff window for " + diff.filePath() + " is still being opened");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Optional<String> close(PendingDiff diff) {
    CompletableFuture<String> closed = onEdt(() -> {
      DiffTopComponent window = windows.remove(diff);
      return window == null ? null : window.closeWithoutOutcome();
    });
    try {
      return Optional.ofNullable(closed.get(EDT_WAIT_SECONDS, TimeUnit.SECONDS));
    } catch (ExecutionException | TimeoutException e) {
      LOG.log(Level.INFO, "Could not read the diff window for " + diff.filePath(), e);
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The editor support of the file when NetBeans already has it loaded; null otherwise. */
  private static EditorCookie editorOf(Path path) {
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

  private static <T> CompletableFuture<T> onEdt(Supplier<T> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable run = () -> {
      try {
        result.complete(task.get());
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
      }
    };
    if (EventQueue.isDispatchThread()) {
      run.run();
    } else {
      EventQueue.invokeLater(run);
    }
    return result;
  }
}
