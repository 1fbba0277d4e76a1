package dev.companion4j.netbeans;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.PendingDiff;
import java.awt.BorderLayout;
import java.awt.event.ActionEvent;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.io.IOException;
import javax.swing.AbstractAction;
import javax.swing.Action;
import javax.swing.Box;
import javax.swing.JButton;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JToolBar;
import javax.swing.KeyStroke;
import javax.swing.SwingUtilities;
import org.netbeans.api.diff.Diff;
import org.netbeans.api.diff.DiffView;
import org.openide.awt.UndoRedo;
import org.openide.cookies.EditorCookie;
import org.openide.cookies.SaveCookie;
import org.openide.util.lookup.Lookups;
import org.openide.windows.Mode;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * A CLI's proposed edit in the editor area: the file on disk on the left, the proposal on the
 * right, editable. Accept (button, Ctrl+S or File > Save) sends the right side's text; Reject or
 * closing the window sends a rejection. Answers go to this proposal's {@link DiffReview} alone; one
 * that comes too late, because the CLI replaced or closed the proposal or left, is reported in the
 * status line instead. Lives on the EDT.
 */
final class DiffTopComponent extends ReviewTopComponent {
  private static final long serialVersionUID = 1L;
  static final String ACCEPT_NAME = "companion4j.accept";
  static final String REJECT_NAME = "companion4j.reject";

  private final transient PendingDiff diff;
  private final transient ProposalDocument proposal;
  private final transient DiffReview review;

  private final transient DiffView view;
  private final String fileName;

  private DiffTopComponent(
      PendingDiff diff,
      OriginalSource before,
      ProposalDocument proposal,
      DiffReview review,
      Runnable onEnded)
      throws IOException {
    super(onEnded);
    this.diff = diff;
    this.proposal = proposal;
    this.review = review;
    this.fileName = before.getName();
    this.view =
        Diff.getDefault()
            .createDiff(
                before,
                new ProposalSource(fileName, proposal.mimeType(), proposal, proposer(diff)));

    setName("companion4j-diff");
    setDisplayName(fileName + " (Before \u2194 After)");
    setToolTipText(
        "Proposed change to " + diff.path() + " \u2014 edit the right side, then Accept or Reject");
    setLayout(new BorderLayout());
    add(toolbar(), BorderLayout.NORTH);
    add(view.getComponent(), BorderLayout.CENTER);

    Action accept =
        new AbstractAction("Accept") {
          @Override
          public void actionPerformed(ActionEvent e) {
            DiffTopComponent.this.accept();
          }
        };
    KeyStroke ctrlS = KeyStroke.getKeyStroke(KeyEvent.VK_S, InputEvent.CTRL_DOWN_MASK);
    getInputMap(JComponent.WHEN_ANCESTOR_OF_FOCUSED_COMPONENT).put(ctrlS, ACCEPT_NAME);
    getActionMap().put(ACCEPT_NAME, accept);
    // File > Save and the Save toolbar button act on the active window's SaveCookie: accepting.
    SaveCookie save = this::accept;
    associateLookup(Lookups.fixed(save));
  }

  /**
   * Opens the window next to the file's editor (in the same window when editors are undocked), else
   * in the editor area, without taking the focus from where the user types.
   */
  static DiffTopComponent open(
      PendingDiff diff,
      OriginalSource before,
      ProposalDocument proposal,
      DiffReview review,
      EditorCookie fileEditor,
      Runnable onEnded) {
    DiffTopComponent window;
    try {
      window = new DiffTopComponent(diff, before, proposal, review, onEnded);
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    Mode mode = modeOf(fileEditor);
    if (mode == null) {
      mode = WindowManager.getDefault().findMode("editor");
    }
    if (mode != null) {
      mode.dockInto(window);
    }
    window.open();
    window.requestVisible();
    return window;
  }

  private static Mode modeOf(EditorCookie fileEditor) {
    JEditorPane[] panes = fileEditor == null ? null : fileEditor.getOpenedPanes();
    if (panes == null || panes.length == 0) {
      return null;
    }
    TopComponent editor =
        (TopComponent) SwingUtilities.getAncestorOfClass(TopComponent.class, panes[0]);
    return editor == null ? null : WindowManager.getDefault().findMode(editor);
  }

  private JToolBar toolbar() {
    JToolBar bar = new JToolBar();
    bar.setFloatable(false);
    JButton accept = new JButton("Accept");
    accept.setName(ACCEPT_NAME);
    accept.setToolTipText(
        "Give the right side, with your edits, to " + proposer(diff) + " to write (Ctrl+S)");
    accept.addActionListener(e -> accept());
    JButton reject = new JButton("Reject");
    reject.setName(REJECT_NAME);
    reject.setToolTipText(
        "Tell " + proposer(diff) + " not to make this change (or close this window)");
    reject.addActionListener(e -> reject());
    bar.add(accept);
    bar.add(Box.createHorizontalStrut(4));
    bar.add(reject);
    bar.add(Box.createHorizontalStrut(12));
    bar.add(
        new JLabel(
            (diff.isNewFile() ? "New file proposed by " : "Change proposed by ") + proposer(diff)));
    return bar;
  }

  void accept() {
    if (!answering()) {
      return;
    }
    AnswerResult result = review.accept(proposal.text());
    close();
    if (!(result instanceof AnswerResult.Sent)) {
      report(notSent(result));
    }
  }

  @Override
  void sendRejection() {
    review.reject();
  }

  @Override
  void discard() {
    proposal.discard();
  }

  /** Why an Accept reached no CLI, in the user's words. */
  private String notSent(AnswerResult result) {
    DiffOutcome outcome = result instanceof AnswerResult.Ended ended ? ended.outcome() : null;
    if (outcome instanceof DiffOutcome.ClientGone) {
      return "The CLI that proposed this edit to " + fileName + " has left; nothing was written";
    }
    if (outcome instanceof DiffOutcome.Replaced) {
      return "This proposal for " + fileName + " was replaced by a newer one; nothing was written";
    }
    if (outcome instanceof DiffOutcome.ClosedByClient) {
      return "The CLI had already closed this proposal for "
          + fileName
          + "; your Accept was not sent";
    }
    if (outcome instanceof DiffOutcome.Stopped) {
      return "The companion stopped before this Accept; nothing was written to " + fileName;
    }
    return "This proposal for " + fileName + " was no longer pending; your Accept was not sent";
  }

  @Override
  public UndoRedo getUndoRedo() {
    UndoRedo undo = undoRedoOf(view);
    return undo == null ? super.getUndoRedo() : undo;
  }

  /** The undo and redo of a diff view's editable side, or null: Edit > Undo acts on it. */
  static UndoRedo undoRedoOf(DiffView view) {
    Object undo =
        view.getComponent() instanceof JComponent c ? c.getClientProperty(UndoRedo.class) : null;
    return undo instanceof UndoRedo u ? u : null;
  }

  @Override
  protected String preferredID() {
    return "companion4j-diff";
  }

  /** Who proposed the change: the CLI, or the in-process proposer by its name (a chat agent). */
  private static String proposer(PendingDiff diff) {
    return diff.proposerName() == null ? "the CLI" : diff.proposerName();
  }
}
