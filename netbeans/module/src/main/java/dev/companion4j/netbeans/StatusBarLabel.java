package dev.companion4j.netbeans;

import java.awt.Cursor;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import javax.swing.BorderFactory;
import javax.swing.JLabel;

/** A clickable item of the IDE's status bar, as the companion's items look. */
final class StatusBarLabel {
  private StatusBarLabel() {}

  /** A label named {@code name} that runs {@code onClick} on the EDT when clicked. */
  static JLabel create(String name, Runnable onClick) {
    JLabel label = new JLabel();
    label.setName(name);
    label.setBorder(BorderFactory.createEmptyBorder(0, 6, 0, 6));
    label.setCursor(Cursor.getPredefinedCursor(Cursor.HAND_CURSOR));
    label.addMouseListener(
        new MouseAdapter() {
          @Override
          public void mouseClicked(MouseEvent e) {
            onClick.run();
          }
        });
    return label;
  }
}
