package dev.companion4j.eclipse.status;

import java.util.function.Consumer;
import org.eclipse.core.runtime.Platform;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.CLabel;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.menus.WorkbenchWindowControlContribution;

/**
 * The companion in the workbench window's status line: port, CLIs and pending diffs, the CLIs by
 * name in the tooltip; a click opens the CLI Companion view. Lives on the UI thread.
 */
public final class StatusLineControl extends WorkbenchWindowControlContribution {
  /** The label's {@code name} (widget data), by which tests find it. */
  static final String NAME = "companion4j.status";

  /** The longest usual text. */
  private static final String WIDEST =
      "CLI companion :65535 \u00b7 Gemini CLI 0.61.0 \u00b7 99 diffs";

  @Override
  protected Control createControl(Composite parent) {
    // The workbench sizes the item once, by what it returns here: a box as wide as the longest
    // usual text, so that a longer text later is not cut short.
    Composite box = new Composite(parent, SWT.NONE);
    GridLayout layout = new GridLayout();
    layout.marginHeight = 0;
    layout.marginWidth = 0;
    box.setLayout(layout);
    CLabel label = new CLabel(box, SWT.NONE);
    label.setData("name", NAME);
    GridData size = new GridData(SWT.FILL, SWT.CENTER, true, true);
    GC gc = new GC(label);
    try {
      size.widthHint = gc.textExtent(WIDEST).x + 16;
    } finally {
      gc.dispose();
    }
    label.setLayoutData(size);
    Consumer<StatusSnapshot> show =
        s -> {
          if (!label.isDisposed()) {
            label.setText(StatusText.line(s));
            label.setToolTipText(StatusText.tooltip(s));
          }
        };
    StatusFeed.watch(show);
    label.addDisposeListener(e -> StatusFeed.unwatch(show));
    label.addListener(SWT.MouseUp, e -> showView(getWorkbenchWindow()));
    return box;
  }

  /** Opens (or brings forward) the CLI Companion view in {@code window}. */
  static void showView(IWorkbenchWindow window) {
    IWorkbenchPage page = window == null ? null : window.getActivePage();
    if (page == null) {
      return;
    }
    try {
      page.showView(CompanionView.ID);
    } catch (PartInitException e) {
      Platform.getLog(StatusLineControl.class)
          .error("The CLI Companion view could not open: " + e.getMessage(), e);
    }
  }
}
