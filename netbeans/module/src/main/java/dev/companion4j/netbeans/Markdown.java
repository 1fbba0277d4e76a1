package dev.companion4j.netbeans;

import java.util.Set;
import org.commonmark.node.Image;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.NodeRenderer;
import org.commonmark.renderer.html.HtmlNodeRendererContext;
import org.commonmark.renderer.html.HtmlRenderer;
import org.commonmark.renderer.html.HtmlWriter;

/**
 * The agent's Markdown as HTML for a Swing text pane: raw HTML in it is escaped (so no style, style
 * sheet or element of its own), no class attribute is written, links keep only safe schemes (never
 * the window's own {@code thought:} links), and images become their alternative text, so rendering
 * a message never loads anything from the network nor styles the window.
 */
final class Markdown {
  private static final Parser PARSER = Parser.builder().build();
  private static final HtmlRenderer RENDERER =
      HtmlRenderer.builder()
          .escapeHtml(true)
          .sanitizeUrls(true)
          .nodeRendererFactory(ImageAsText::new)
          // A code block's language becomes a class: no name from a message meets the pane's style
          // sheet.
          .attributeProviderFactory(
              context -> (node, tagName, attributes) -> attributes.remove("class"))
          .build();

  private Markdown() {}

  static String toHtml(String markdown) {
    return RENDERER.render(PARSER.parse(markdown));
  }

  /** Writes an image as "[image: alt]" instead of an {@code <img>} that would be fetched. */
  private static final class ImageAsText implements NodeRenderer {
    private final HtmlWriter html;

    ImageAsText(HtmlNodeRendererContext context) {
      this.html = context.getWriter();
    }

    @Override
    public Set<Class<? extends Node>> getNodeTypes() {
      return Set.of(Image.class);
    }

    @Override
    public void render(Node node) {
      StringBuilder alt = new StringBuilder();
      for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
        if (child instanceof Text text) {
          alt.append(text.getLiteral());
        }
      }
      html.text("[image: " + alt + "]");
    }
  }
}
