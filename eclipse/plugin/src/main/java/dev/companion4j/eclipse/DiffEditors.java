package dev.companion4j.eclipse;

import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.PendingDiff;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.compare.CompareUI;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IEditorReference;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;

/** The compare editors showing proposals, one per pending diff. */
final class DiffEditors {
  /**
   * How long the engine thread waits for the UI thread to close one; a UI thread that is itself
   * waiting for the companion (stopping it) must not hold the engine up for good.
   */
  private static final Duration CLOSE_BOUND = Duration.ofSeconds(2);

  private final IWorkbench workbench;
  private final Map<DiffId, ProposalInput> open = new ConcurrentHashMap<>();

  DiffEditors(IWorkbench workbench) {
    this.workbench = workbench;
  }

  /** Opens the compare editor without taking the keyboard focus from where the user types. */
  void show(PendingDiff diff) {
    ProposalInput input = new ProposalInput(diff);
    open.put(diff.id(), input);
    workbench.getDisplay().asyncExec(() -> CompareUI.openCompareEditor(input, false));
  }

  /** Closes the diff's editor, if it is open, and returns the proposal as the user left it. */
  Optional<String> close(PendingDiff diff) {
    ProposalInput input = open.remove(diff.id());
    if (input == null) {
      return Optional.empty();
    }
    CompletableFuture<String> closed = new CompletableFuture<>();
    workbench
        .getDisplay()
        .asyncExec(
            () -> {
              String text = input.proposedText();
              closeEditorOf(input);
              closed.complete(text);
            });
    try {
      return Optional.of(closed.get(CLOSE_BOUND.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private void closeEditorOf(ProposalInput input) {
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      for (IWorkbenchPage page : window.getPages()) {
        for (IEditorReference ref : page.getEditorReferences()) {
          try {
            if (ref.getEditorInput() == input) {
              IEditorPart editor = ref.getEditor(false);
              if (editor != null) {
                // The proposal is no file: nothing to save, and no dialog asking to.
                page.closeEditor(editor, false);
              }
            }
          } catch (PartInitException e) {
            // An editor that never came up shows nothing to close.
          }
        }
      }
    }
  }
}
