package dev.companion4j.netbeans;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Component;
import javax.swing.JComponent;
import javax.swing.JList;
import javax.swing.plaf.basic.BasicHTML;
import org.junit.jupiter.api.Test;

/**
 * Text from the daemon on the chat window's buttons, labels, menus and lists: Swing renders a text
 * that starts with {@code <html>} as HTML, images fetched from the network included, so these show
 * it as the text it is.
 */
class PlainTextTest {
  private static final String HOSTILE =
      "<html><img src='http://127.0.0.1:9/pixel.png'><b>Allow</b>";

  private static boolean rendersHtml(JComponent c) {
    return c.getClientProperty(BasicHTML.propertyKey) != null;
  }

  @Test
  void aDaemonsTextIsNeverHtmlOnAButtonLabelOrMenuItem() {
    assertThat(rendersHtml(PlainText.button(HOSTILE))).as("button").isFalse();
    assertThat(rendersHtml(PlainText.label(HOSTILE))).as("label").isFalse();
    assertThat(rendersHtml(PlainText.menuItem(HOSTILE))).as("menu item").isFalse();
    assertThat(PlainText.button(HOSTILE).getText()).isEqualTo(HOSTILE);
  }

  @Test
  void aDaemonsTextIsNeverHtmlInAList() {
    Component shown =
        PlainText.renderer().getListCellRendererComponent(new JList<>(), HOSTILE, 0, false, false);

    assertThat(rendersHtml((JComponent) shown)).isFalse();
  }
}
