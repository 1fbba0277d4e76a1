package dev.companion4j.eclipse.status;

import dev.companion4j.eclipse.Activator;
import dev.companion4j.engine.PendingDiff;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Table;
import org.eclipse.swt.widgets.TableItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.part.ViewPart;

/**
 * The CLI Companion view: state, port, workspace roots, connected CLIs, discovery files, and the
 * pending proposals, each opening its compare editor. Refreshed on the companion's events; lives on
 * the UI thread.
 */
public final class CompanionView extends ViewPart {
  public static final String ID = "dev.companion4j.eclipse.status.view";

  /** Widget names (the {@code name} data), by which tests find them. */
  static final String REPORT = "companion4j.view.report";

  static final String PROPOSALS = "companion4j.view.proposals";

  private Text report;
  private Table proposals;
  private final Consumer<StatusSnapshot> show = this::show;
  private List<PendingDiff> shown = List.of();

  @Override
  public void createPartControl(Composite parent) {
    parent.setLayout(new GridLayout(2, false));
    report = new Text(parent, SWT.MULTI | SWT.READ_ONLY | SWT.V_SCROLL | SWT.H_SCROLL);
    report.setData("name", REPORT);
    report.setFont(JFaceResources.getTextFont());
    report.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true, 2, 1));

    Label title = new Label(parent, SWT.NONE);
    title.setText("Pending diffs (double-click to review):");
    title.setLayoutData(new GridData(SWT.BEGINNING, SWT.CENTER, true, false));
    Button restart = new Button(parent, SWT.PUSH);
    restart.setText("Restart Companion");
    restart.setToolTipText(
        "Stop the companion and start a new one: connected CLIs have to connect again");
    restart.addListener(SWT.Selection, e -> Activator.restartCompanion());

    proposals = new Table(parent, SWT.SINGLE | SWT.BORDER | SWT.FULL_SELECTION);
    proposals.setData("name", PROPOSALS);
    GridData table = new GridData(SWT.FILL, SWT.FILL, true, false, 2, 1);
    table.heightHint = proposals.getItemHeight() * 3;
    proposals.setLayoutData(table);
    proposals.addListener(SWT.DefaultSelection, e -> reveal());
    StatusFeed.watch(show);
  }

  private void show(StatusSnapshot s) {
    if (report.isDisposed()) {
      return;
    }
    report.setText(StatusText.report(s));
    shown = s.pendingDiffs();
    proposals.removeAll();
    for (PendingDiff d : shown) {
      // Paths and names are the CLI's data: plain table text, never markup.
      new TableItem(proposals, SWT.NONE).setText(StatusText.proposal(d, s.clients()));
    }
  }

  private void reveal() {
    int i = proposals.getSelectionIndex();
    if (i >= 0 && i < shown.size()) {
      Activator.revealProposal(shown.get(i).id());
    }
  }

  @Override
  public void setFocus() {
    report.setFocus();
  }

  @Override
  public void dispose() {
    StatusFeed.unwatch(show);
    super.dispose();
  }
}
