package dev.companion4j.netbeans;

import javax.swing.AbstractButton;
import javax.swing.DefaultListCellRenderer;
import javax.swing.JButton;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JMenuItem;
import javax.swing.ListCellRenderer;

/**
 * Swing components for text from the daemon (model names, session titles, permission options,
 * paths): Swing renders a text that starts with {@code <html>} as HTML, and fetches the images it
 * names, so these show such a text as it is.
 */
final class PlainText {
  /** The client property Swing's text views check before they render HTML. */
  private static final String HTML_DISABLE = "html.disable";

  private PlainText() {}

  static JLabel label(String text) {
    JLabel label = plain(new JLabel());
    label.setText(text);
    return label;
  }

  static JButton button(String text) {
    return withText(new JButton(), text);
  }

  static JMenuItem menuItem(String text) {
    return withText(new JMenuItem(), text);
  }

  /** A list's or combo box's renderer that shows each value as plain text. */
  static ListCellRenderer<Object> renderer() {
    return plain(new DefaultListCellRenderer());
  }

  static <T extends AbstractButton> T withText(T button, String text) {
    plain(button).setText(text);
    return button;
  }

  /** Set before the text: Swing decides on HTML when the text is set. */
  private static <T extends JComponent> T plain(T component) {
    component.putClientProperty(HTML_DISABLE, Boolean.TRUE);
    return component;
  }
}
