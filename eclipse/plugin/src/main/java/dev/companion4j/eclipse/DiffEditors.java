package dev.companion4j.eclipse;

import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingDiff;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.eclipse.compare.CompareUI;
import org.eclipse.jface.action.IStatusLineManager;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IEditorSite;
import org.eclipse.ui.IViewSite;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPart;
import org.eclipse.ui.IWorkbenchPartSite;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;

/**
 * The compare editors showing proposals, one per pending diff; and, as a listener of the companion,
 * the message when a proposal's CLI left.
 */
final class DiffEditors implements CompanionListener {
  /** How long the engine thread waits for the UI thread to close one. */
  private static final Duration CLOSE_BOUND = Duration.ofSeconds(2);

  /** How long the engine thread waits for the UI thread to open one, as for open_file. */
  private static final Duration SHOW_BOUND = Duration.ofSeconds(5);

  private final IWorkbench workbench;

  /**
   * The proposals under review: in here from showDiff until answered or closed, whichever first.
   */
  private final Map<DiffId, ProposalInput> open = new ConcurrentHashMap<>();

  DiffEditors(IWorkbench workbench) {
    this.workbench = workbench;
  }

  /**
   * Opens the compare editor without taking the keyboard focus from where the user types, and
   * returns once it is open: a diff the CLI hears is shown is on the screen.
   */
  void show(PendingDiff diff, DiffReview review) throws DiffViewException {
    ProposalInput input = new ProposalInput(diff, review, () -> open.remove(diff.id()));
    open.put(diff.id(), input);
    String name = diff.path().getFileName().toString();
    try {
      UiThread.call(
          workbench.getDisplay(),
          SHOW_BOUND,
          () -> {
            CompareUI.openCompareEditor(input, false);
            return null;
          });
    } catch (ExecutionException e) {
      open.remove(diff.id());
      throw new DiffViewException(
          "Eclipse failed to open the compare editor for " + name + ": " + e.getCause());
    } catch (TimeoutException e) {
      open.remove(diff.id());
      throw new DiffViewException(
          "Eclipse did not open the compare editor for " + name + " within " + SHOW_BOUND);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      open.remove(diff.id());
      throw new DiffViewException("Interrupted while Eclipse opened the diff for " + name);
    }
  }

  /** On the UI thread: brings the proposal's compare editor to the front, if it is still open. */
  void reveal(DiffId id) {
    ProposalInput input = open.get(id);
    if (input == null) {
      return;
    }
    // Not CompareUI.openCompareEditor: it would prepare the input again, under the user's edits.
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      for (IWorkbenchPage page : window.getPages()) {
        IEditorPart editor = page.findEditor(input);
        if (editor != null) {
          window.getShell().setActive();
          page.activate(editor);
          return;
        }
      }
    }
  }

  /**
   * Closes the diff's editor without an answer, if the user has not answered it, and returns the
   * proposal as the user left it.
   */
  Optional<String> close(PendingDiff diff) {
    ProposalInput input = open.remove(diff.id());
    if (input == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          UiThread.call(
              workbench.getDisplay(),
              CLOSE_BOUND,
              () -> {
                String text = input.proposedText();
                input.closeWithoutAnswer();
                return text;
              }));
    } catch (ExecutionException | TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** On the engine thread, after the diff's editor was closed. */
  @Override
  public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
    if (outcome instanceof DiffOutcome.ClientGone) {
      workbench.getDisplay().asyncExec(() -> report(clientGone(diff)));
    }
  }

  static String clientGone(PendingDiff diff) {
    return "The CLI that proposed the edit to "
        + diff.path().getFileName()
        + " has left; its proposal was closed and nothing was written";
  }

  /**
   * On the UI thread: tells the user why a proposal ended without their answer, in the active
   * part's status line and in the error log (which keeps it after the status line changes).
   */
  static void report(String message) {
    Activator.log().info(message);
    IWorkbenchWindow window = PlatformUI.getWorkbench().getActiveWorkbenchWindow();
    IWorkbenchPage page = window == null ? null : window.getActivePage();
    IWorkbenchPart part = page == null ? null : page.getActivePart();
    IWorkbenchPartSite site = part == null ? null : part.getSite();
    IStatusLineManager status =
        site instanceof IEditorSite editor
            ? editor.getActionBars().getStatusLineManager()
            : site instanceof IViewSite view ? view.getActionBars().getStatusLineManager() : null;
    if (status != null) {
      status.setMessage(message);
    }
  }
}
