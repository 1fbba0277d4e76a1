package dev.companion4j.eclipse;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.PendingDiff;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import org.eclipse.compare.CompareConfiguration;
import org.eclipse.compare.CompareEditorInput;
import org.eclipse.compare.IEditableContent;
import org.eclipse.compare.IStreamContentAccessor;
import org.eclipse.compare.ITypedElement;
import org.eclipse.compare.structuremergeviewer.DiffNode;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.swt.graphics.Image;
import org.eclipse.ui.IEditorReference;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;

/**
 * A proposal in Eclipse's compare editor: the file as the CLI read it on the left, read-only; the
 * proposal on the right, editable. The user answers it once: Accept sends the right side as edited,
 * Reject or closing the editor rejects; or the engine closes it without an answer. Lives on the UI
 * thread.
 */
final class ProposalInput extends CompareEditorInput {
  private final PendingDiff diff;
  private final DiffReview review;
  private final Side proposal;

  /** Tells the registry of open proposals that the engine need not close this one any more. */
  private final Runnable onEnded;

  private boolean answered;

  ProposalInput(PendingDiff diff, DiffReview review, Runnable onEnded) {
    super(new CompareConfiguration());
    this.diff = diff;
    this.review = review;
    this.onEnded = onEnded;
    String name = diff.path().getFileName().toString();
    this.proposal = new Side(name, diff.newContent(), true);
    CompareConfiguration config = getCompareConfiguration();
    // Eclipse's compare preference swaps the sides by default (the proposal would show left):
    // this editor keeps the disk left and the proposal right, as every editor of the project does.
    config.setProperty(CompareConfiguration.MIRRORED, Boolean.FALSE);
    // A new file: the left side is empty, and says so.
    config.setLeftLabel(diff.isNewFile() ? name + " (new file)" : name + " (on disk)");
    config.setLeftEditable(false);
    config.setRightLabel(name + " (proposed by " + proposer() + ")");
    config.setRightEditable(true);
    setTitle(name + (diff.isNewFile() ? " (new file)" : " (Before ↔ After)"));
  }

  /** The right side as the user left it, edits not yet flushed from the viewer included. */
  String proposedText() {
    try {
      saveChanges(new NullProgressMonitor());
    } catch (CoreException e) {
      // The viewer could not hand over its text; what it last flushed is still the answer.
    }
    return proposal.text;
  }

  /** Sends the right side, the user's edits included, for the CLI to write; then closes. */
  void accept() {
    if (!answering()) {
      return;
    }
    AnswerResult result = review.accept(proposedText());
    closeEditor();
    if (!(result instanceof AnswerResult.Sent)) {
      DiffEditors.report(notSent(result));
    }
  }

  /** Tells the CLI the edit is rejected; then closes. */
  void reject() {
    if (answering()) {
      review.reject();
      closeEditor();
    }
  }

  /** The review ended without the user's answer: the CLI closed or replaced it, or left. */
  void closeWithoutAnswer() {
    answered = true;
    closeEditor();
  }

  /** Closing the editor by hand rejects, as Reject does. */
  @Override
  protected void handleDispose() {
    super.handleDispose();
    if (answering()) {
      review.reject();
    }
  }

  /** Starts the user's answer; false when it was answered or ended already. */
  private boolean answering() {
    if (answered) {
      return false;
    }
    answered = true;
    onEnded.run();
    return true;
  }

  /** Closes this proposal's editor, wherever it is, shown or not yet. */
  private void closeEditor() {
    for (IWorkbenchWindow window : PlatformUI.getWorkbench().getWorkbenchWindows()) {
      for (IWorkbenchPage page : window.getPages()) {
        for (IEditorReference ref : page.getEditorReferences()) {
          try {
            if (ref.getEditorInput() == this) {
              // The proposal is no file: nothing to save, and no dialog asking to.
              page.closeEditors(new IEditorReference[] {ref}, false);
            }
          } catch (PartInitException e) {
            // An editor that never came up shows nothing to close.
          }
        }
      }
    }
  }

  /** Why an Accept reached no CLI, in the user's words. */
  private String notSent(AnswerResult result) {
    String name = diff.path().getFileName().toString();
    DiffOutcome outcome = result instanceof AnswerResult.Ended ended ? ended.outcome() : null;
    if (outcome instanceof DiffOutcome.ClientGone) {
      return DiffEditors.clientGone(diff);
    }
    if (outcome instanceof DiffOutcome.Replaced) {
      return "This proposal for " + name + " was replaced by a newer one; nothing was written";
    }
    return "This proposal for " + name + " was no longer pending; your Accept was not sent";
  }

  private String proposer() {
    return diff.proposerName() == null ? "the CLI" : diff.proposerName();
  }

  @Override
  protected Object prepareInput(IProgressMonitor monitor)
      throws InvocationTargetException, InterruptedException {
    String name = diff.path().getFileName().toString();
    return new DiffNode(new Side(name, diff.originalContent(), false), proposal);
  }

  /**
   * One side of the comparison, held in memory: the proposal is no file until the CLI writes it.
   */
  private static final class Side
      implements ITypedElement, IStreamContentAccessor, IEditableContent {
    private final String name;
    private final boolean editable;
    private String text;

    Side(String name, String text, boolean editable) {
      this.name = name;
      this.text = text;
      this.editable = editable;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public Image getImage() {
      return null;
    }

    /** The extension picks the text viewer (Java's for .java when JDT is there). */
    @Override
    public String getType() {
      int dot = name.lastIndexOf('.');
      return dot < 0 ? ITypedElement.TEXT_TYPE : name.substring(dot + 1);
    }

    @Override
    public InputStream getContents() {
      return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean isEditable() {
      return editable;
    }

    @Override
    public ITypedElement replace(ITypedElement dest, ITypedElement src) {
      return dest;
    }

    @Override
    public void setContent(byte[] newContent) {
      text = new String(newContent, StandardCharsets.UTF_8);
    }
  }
}
