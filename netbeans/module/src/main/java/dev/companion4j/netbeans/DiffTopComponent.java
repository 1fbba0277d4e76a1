package dev.companion4j.netbeans;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.PendingDiff;
import java.awt.BorderLayout;
import java.awt.event.ActionEvent;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.file.Path;
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
import org.netbeans.api.diff.Difference;
import org.netbeans.api.diff.StreamSource;
import org.openide.awt.UndoRedo;
import org.openide.cookies.EditorCookie;
import org.openide.cookies.SaveCookie;
import org.openide.util.Lookup;
import org.openide.util.lookup.Lookups;
import org.openide.windows.Mode;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * A CLI's proposed edit in the editor area: the file on disk on the left, the proposal on the
 * right, editable. Accept (button, Ctrl+S or File > Save) sends the right side's text; Reject or
 * closing the window sends a rejection.
 */
final class DiffTopComponent extends TopComponent {
  private static final long serialVersionUID = 1L;
  static final String ACCEPT_NAME = "companion4j.accept";
  static final String REJECT_NAME = "companion4j.reject";

  private final transient PendingDiff diff;
  private final transient ProposalDocument proposal;
  private final transient Companion companion;
  private final transient Runnable onClosed;
  private final transient DiffView view;
  private boolean answered;

  private DiffTopComponent(PendingDiff diff, ProposalDocument proposal, Companion companion, Runnable onClosed)
      throws IOException {
    this.diff = diff;
    this.proposal = proposal;
    this.companion = companion;
    this.onClosed = onClosed;
    Path fileName = diff.path().getFileName();
    String name = fileName == null ? diff.filePath() : fileName.toString();
    String mime = proposal.mimeType();
    StreamSource before = StreamSource.createSource(
        name,
        diff.isNewFile() ? "New file: " + diff.path() : "On disk: " + diff.path(),
        mime,
        new StringReader(diff.originalContent()));
    this.view = Diff.getDefault().createDiff(before, new ProposalSource(name, mime, proposal));

    setName("companion4j-diff");
    setDisplayName(name + " (Before \u2194 After)");
    setToolTipText("Proposed change to " + diff.path() + " \u2014 edit the right side, then Accept or Reject");
    setLayout(new BorderLayout());
    add(toolbar(), BorderLayout.NORTH);
    add(view.getComponent(), BorderLayout.CENTER);

    Action accept = new AbstractAction("Accept") {
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
   * Opens the window next to the file's editor (in the same window when editors are undocked),
   * else in the editor area, without taking the focus from where the user types.
   */
  static DiffTopComponent open(
      PendingDiff diff, ProposalDocument proposal, Companion companion, EditorCookie fileEditor, Runnable onClosed) {
    DiffTopComponent window;
    try {
      window = new DiffTopComponent(diff, proposal, companion, onClosed);
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
    TopComponent editor = (TopComponent) SwingUtilities.getAncestorOfClass(TopComponent.class, panes[0]);
    return editor == null ? null : WindowManager.getDefault().findMode(editor);
  }

  private JToolBar toolbar() {
    JToolBar bar = new JToolBar();
    bar.setFloatable(false);
    JButton accept = new JButton("Accept");
    accept.setName(ACCEPT_NAME);
    accept.setToolTipText("Give the right side, with your edits, to the CLI to write (Ctrl+S)");
    accept.addActionListener(e -> accept());
    JButton reject = new JButton("Reject");
    reject.setName(REJECT_NAME);
    reject.setToolTipText("Tell the CLI not to make this change (or close this window)");
    reject.addActionListener(e -> reject());
    bar.add(accept);
    bar.add(Box.createHorizontalStrut(4));
    bar.add(reject);
    bar.add(Box.createHorizontalStrut(12));
    bar.add(new JLabel(diff.isNewFile() ? "New file proposed by the CLI" : "Change proposed by the CLI"));
    return bar;
  }

  PendingDiff diff() {
    return diff;
  }

  /** The right side as it is now, edits included. */
  String proposedText() {
    return proposal.text();
  }

  void accept() {
    if (answered) {
      return;
    }
    answered = true;
    companion.acceptDiff(diff.filePath(), proposal.text());
    close();
  }

  void reject() {
    if (answered) {
      return;
    }
    answered = true;
    companion.rejectDiff(diff.filePath());
    close();
  }

  /** The CLI closed the diff: no outcome to send; returns the right side's text. */
  String closeWithoutOutcome() {
    answered = true;
    String text = proposal.text();
    close();
    return text;
  }

  @Override
  protected void componentClosed() {
    super.componentClosed();
    if (!answered) {
      answered = true;
      companion.rejectDiff(diff.filePath());
    }
    proposal.discard();
    onClosed.run();
  }

  @Override
  public UndoRedo getUndoRedo() {
    Object undo = view.getComponent() instanceof JComponent c ? c.getClientProperty(UndoRedo.class) : null;
    return undo instanceof UndoRedo u ? u : super.getUndoRedo();
  }

  @Override
  public int getPersistenceType() {
    return PERSISTENCE_NEVER;
  }

  @Override
  protected String preferredID() {
    return "companion4j-diff";
  }

  /** The proposal side: editable, backed by the in-memory document. */
  private static final class ProposalSource extends StreamSource {
    private final String name;
    private final String mime;
    private final ProposalDocument proposal;

    ProposalSource(String name, String mime, ProposalDocument proposal) {
      this.name = name;
      this.mime = mime;
      this.proposal = proposal;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public String getTitle() {
      return "Proposed by the CLI (editable)";
    }

    @Override
    public String getMIMEType() {
      return mime;
    }

    @Override
    public Reader createReader() {
      return new StringReader(proposal.text());
    }

    @Override
    public Writer createWriter(Difference[] conflicts) {
      return null;
    }

    @Override
    public boolean isEditable() {
      return true;
    }

    @Override
    public Lookup getLookup() {
      return Lookups.fixed(proposal.file());
    }
  }
}
