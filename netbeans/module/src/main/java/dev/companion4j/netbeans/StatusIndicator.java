package dev.companion4j.netbeans;

import java.awt.Component;
import java.awt.EventQueue;
import javax.swing.JLabel;
import org.openide.awt.StatusLineElementProvider;
import org.openide.util.lookup.ServiceProvider;

/** The status-bar item: port, connected CLIs and pending diffs; a click shows the details. */
@ServiceProvider(service = StatusLineElementProvider.class, position = 400)
public final class StatusIndicator implements StatusLineElementProvider {
  static final String NAME = "companion4j.status";

  private JLabel label;

  @Override
  public synchronized Component getStatusLineElement() {
    if (label == null) {
      label = StatusBarLabel.create(NAME, StatusDialog::show);
      CompanionService service = CompanionService.getDefault();
      JLabel l = label;
      service.addChangeListener(e -> EventQueue.invokeLater(() -> update(l)));
      update(l);
    }
    return label;
  }

  static String text(CompanionService.Status s) {
    if (!s.running()) {
      return "CLI companion: off";
    }
    int clients = s.clients().size();
    int diffs = s.pendingDiffs().size();
    StringBuilder text =
        new StringBuilder("CLI companion :")
            .append(s.port())
            .append(" \u00b7 ")
            .append(clients)
            .append(clients == 1 ? " CLI" : " CLIs");
    if (diffs > 0) {
      text.append(" \u00b7 ").append(diffs).append(diffs == 1 ? " diff" : " diffs");
    }
    return text.toString();
  }

  private static void update(JLabel label) {
    CompanionService.Status s = CompanionService.getDefault().status();
    label.setText(text(s));
    label.setToolTipText(
        s.running()
            ? "Qwen Code / Gemini CLI companion on 127.0.0.1:"
                + s.port()
                + " \u2014 click for terminal variables"
            : "Qwen Code / Gemini CLI companion is not running"
                + (s.failure() == null ? "" : ": " + s.failure()));
  }
}
