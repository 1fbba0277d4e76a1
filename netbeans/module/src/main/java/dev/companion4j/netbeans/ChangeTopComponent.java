package dev.companion4j.netbeans;

import dev.companion4j.engine.ChangeAnswer;
import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.PendingChange;
import java.awt.BorderLayout;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.swing.Box;
import javax.swing.JButton;
import javax.swing.JLabel;
import javax.swing.JList;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JSplitPane;
import javax.swing.JToolBar;
import javax.swing.ListSelectionModel;
import org.netbeans.api.diff.Diff;
import org.netbeans.api.diff.DiffView;
import org.openide.awt.UndoRedo;
import org.openide.windows.Mode;
import org.openide.windows.WindowManager;

/**
 * A change of several files in the editor area, reviewed as one: the files on the left, the
 * selected file's diff on the right (the file on disk, and the proposal, editable), one Accept and
 * one Reject for every file. Accept sends the text of each file the user edited; Reject or closing
 * the window rejects the change, as for a single file's diff. An answer that ends nothing, or an
 * accept the engine turns down because a file changed on disk, is reported in the status line.
 * Lives on the EDT.
 */
final class ChangeTopComponent extends ReviewTopComponent {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = Logger.getLogger(ChangeTopComponent.class.getName());

  private final transient PendingChange change;
  private final transient List<OriginalSource> befores;
  private final transient List<ProposalDocument> proposals;
  private final transient ChangeReview review;

  /** Each file's diff view, made when the file is first selected. */
  private final transient DiffView[] views;

  private final JPanel shown = new JPanel(new BorderLayout());
  private int selected = -1;

  private ChangeTopComponent(
      PendingChange change,
      List<OriginalSource> befores,
      List<ProposalDocument> proposals,
      ChangeReview review,
      Runnable onEnded) {
    super(onEnded);
    this.change = change;
    this.befores = befores;
    this.proposals = proposals;
    this.review = review;
    this.views = new DiffView[proposals.size()];

    int count = change.files().size();
    String summary = "Change of " + count + (count == 1 ? " file" : " files");
    setName("companion4j-change");
    setDisplayName(summary + " (Before \u2194 After)");
    setToolTipText(
        "A change of several files: review each, edit the proposals, then Accept or Reject");

    JList<String> files =
        new JList<>(change.files().stream().map(ChangeTopComponent::label).toArray(String[]::new));
    files.setName("companion4j.change.files");
    // File names are shown as they are, never rendered as HTML.
    files.setCellRenderer(PlainText.renderer());
    files.setSelectionMode(ListSelectionModel.SINGLE_SELECTION);
    files.addListSelectionListener(
        e -> {
          if (!e.getValueIsAdjusting() && files.getSelectedIndex() >= 0) {
            showFile(files.getSelectedIndex());
          }
        });
    JSplitPane split = new JSplitPane(JSplitPane.HORIZONTAL_SPLIT, new JScrollPane(files), shown);
    split.setDividerLocation(220);

    setLayout(new BorderLayout());
    add(toolbar(summary), BorderLayout.NORTH);
    add(split, BorderLayout.CENTER);
    files.setSelectedIndex(0);
  }

  /**
   * Opens the window in the editor area without taking the focus from where the user types; {@code
   * befores} and {@code proposals} are each file's two sides, in the change's order.
   */
  static ChangeTopComponent open(
      PendingChange change,
      List<OriginalSource> befores,
      List<ProposalDocument> proposals,
      ChangeReview review,
      Runnable onEnded) {
    ChangeTopComponent window = new ChangeTopComponent(change, befores, proposals, review, onEnded);
    Mode mode = WindowManager.getDefault().findMode("editor");
    if (mode != null) {
      mode.dockInto(window);
    }
    window.open();
    window.requestVisible();
    return window;
  }

  private JToolBar toolbar(String summary) {
    JToolBar bar = new JToolBar();
    bar.setFloatable(false);
    JButton accept = new JButton("Accept");
    accept.setName("companion4j.change.accept");
    accept.setToolTipText("Write every file as proposed, with your edits");
    accept.addActionListener(e -> accept());
    JButton reject = new JButton("Reject");
    reject.setName("companion4j.change.reject");
    reject.setToolTipText("Write none of these files (or close this window)");
    reject.addActionListener(e -> reject());
    bar.add(accept);
    bar.add(Box.createHorizontalStrut(4));
    bar.add(reject);
    bar.add(Box.createHorizontalStrut(12));
    // Who proposed it is the proposer's own text: shown as it is.
    JLabel proposer = PlainText.label(summary + " proposed by " + change.proposerName());
    proposer.setName("companion4j.change.proposer");
    bar.add(proposer);
    return bar;
  }

  /** Shows the diff of file {@code index}, made the first time it is shown. */
  private void showFile(int index) {
    if (views[index] == null) {
      try {
        views[index] = diffView(index);
      } catch (IOException e) {
        LOG.info("No diff view for " + change.files().get(index).path() + ": " + e);
        shown.removeAll();
        shown.add(PlainText.label("NetBeans cannot show this file's diff: " + e.getMessage()));
        shown.revalidate();
        shown.repaint();
        return;
      }
    }
    selected = index;
    shown.removeAll();
    shown.add(views[index].getComponent(), BorderLayout.CENTER);
    shown.revalidate();
    shown.repaint();
  }

  private DiffView diffView(int index) throws IOException {
    OriginalSource before = befores.get(index);
    ProposalDocument proposal = proposals.get(index);
    return Diff.getDefault()
        .createDiff(
            before,
            new ProposalSource(
                before.getName(), proposal.mimeType(), proposal, change.proposerName()));
  }

  void accept() {
    if (!answering()) {
      return;
    }
    Map<Path, String> edited = new LinkedHashMap<>();
    for (int i = 0; i < proposals.size(); i++) {
      PendingChange.File file = change.files().get(i);
      String text = proposals.get(i).text();
      if (!text.equals(file.newContent())) {
        edited.put(file.path(), text);
      }
    }
    ChangeAnswer answer = review.accept(edited);
    close();
    String message = notWritten(answer);
    if (message != null) {
      report(message);
    }
  }

  @Override
  void sendRejection() {
    review.reject();
  }

  @Override
  void discard() {
    proposals.forEach(ProposalDocument::discard);
  }

  /** Why an Accept wrote nothing, in the user's words; null when the files are being written. */
  private String notWritten(ChangeAnswer answer) {
    if (answer instanceof ChangeAnswer.Decided decided) {
      if (decided.outcome() instanceof ChangeOutcome.ChangedOnDisk changed) {
        return "Nothing was written: "
            + changed.paths().stream()
                .map(ChangeTopComponent::label)
                .collect(Collectors.joining(", "))
            + " changed on disk since "
            + change.proposerName()
            + " proposed this change";
      }
      return null;
    }
    ChangeOutcome outcome = answer instanceof ChangeAnswer.Ended ended ? ended.outcome() : null;
    if (outcome instanceof ChangeOutcome.Stopped) {
      return "The companion stopped before this Accept; nothing was written";
    }
    if (outcome instanceof ChangeOutcome.Rejected) {
      return change.proposerName()
          + " withdrew this change before your Accept; nothing was written";
    }
    return "This change was no longer pending; your Accept was not sent";
  }

  /** A file as the list names it: by its path in its project, or in full outside any project. */
  private static String label(PendingChange.File file) {
    return label(file.path()) + (file.existed() ? "" : " (new)");
  }

  private static String label(Path path) {
    for (Path root : NetBeansHost.openProjectDirectories()) {
      if (path.startsWith(root) && !path.equals(root)) {
        return root.relativize(path).toString().replace(File.separatorChar, '/');
      }
    }
    return path.toString();
  }

  @Override
  public UndoRedo getUndoRedo() {
    UndoRedo undo = selected < 0 ? null : DiffTopComponent.undoRedoOf(views[selected]);
    return undo == null ? super.getUndoRedo() : undo;
  }

  @Override
  protected String preferredID() {
    return "companion4j-change";
  }
}
