package dev.companion4j.eclipse.chat;

import java.util.ArrayList;
import java.util.List;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.BulletList;
import org.commonmark.node.Code;
import org.commonmark.node.Emphasis;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Link;
import org.commonmark.node.ListItem;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.node.Text;
import org.commonmark.node.ThematicBreak;
import org.commonmark.parser.Parser;

/**
 * The agent's Markdown as plain text with style spans, for SWT's StyledText: nothing in it is ever
 * interpreted as markup by the widget, raw HTML shows as its text, a link is its text underlined
 * (the address after it, never followed), and an image is its alternative text, so showing a
 * message loads nothing and runs nothing.
 */
final class Markdown {
  private static final Parser PARSER = Parser.builder().build();

  private Markdown() {}

  /** A run of text with one style; offsets into {@link Styled#text}. */
  record Span(int start, int length, Style style) {}

  /** How a span looks. */
  enum Style {
    BOLD,
    ITALIC,
    CODE,
    LINK
  }

  /** The text and its spans, in order of their start. */
  record Styled(String text, List<Span> spans) {
    Styled {
      spans = List.copyOf(spans);
    }
  }

  static Styled render(String markdown) {
    Writer writer = new Writer();
    PARSER.parse(markdown).accept(writer);
    String text = writer.out.toString().stripTrailing();
    List<Span> spans = new ArrayList<>();
    for (Span s : writer.spans) {
      int end = Math.min(s.start() + s.length(), text.length());
      if (end > s.start()) {
        spans.add(new Span(s.start(), end - s.start(), s.style()));
      }
    }
    return new Styled(text, spans);
  }

  private static final class Writer extends AbstractVisitor {
    private final StringBuilder out = new StringBuilder();
    private final List<Span> spans = new ArrayList<>();
    private String indent = "";

    private void styled(Style style, Runnable inside) {
      int start = out.length();
      inside.run();
      if (out.length() > start) {
        spans.add(new Span(start, out.length() - start, style));
      }
    }

    private void block(Runnable inside) {
      if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
        out.append('\n');
      }
      inside.run();
      out.append('\n');
    }

    private void children(Node node) {
      visitChildren(node);
    }

    @Override
    public void visit(Paragraph p) {
      block(() -> children(p));
    }

    @Override
    public void visit(Heading h) {
      block(() -> styled(Style.BOLD, () -> children(h)));
    }

    @Override
    public void visit(BlockQuote q) {
      block(() -> styled(Style.ITALIC, () -> children(q)));
    }

    @Override
    public void visit(BulletList list) {
      items(list, null);
    }

    @Override
    public void visit(OrderedList list) {
      Integer start = list.getMarkerStartNumber();
      items(list, start == null ? 1 : start);
    }

    private void items(Node list, Integer number) {
      String outer = indent;
      int n = number == null ? 0 : number;
      for (Node item = list.getFirstChild(); item != null; item = item.getNext()) {
        if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
          out.append('\n');
        }
        out.append(outer).append(number == null ? "\u2022 " : n++ + ". ");
        indent = outer + "   ";
        for (Node child = item.getFirstChild(); child != null; child = child.getNext()) {
          if (child instanceof Paragraph) {
            children(child);
          } else {
            child.accept(this);
          }
        }
        indent = outer;
      }
      out.append('\n');
    }

    @Override
    public void visit(ListItem item) {
      children(item);
    }

    @Override
    public void visit(FencedCodeBlock code) {
      block(() -> styled(Style.CODE, () -> out.append(code.getLiteral().stripTrailing())));
    }

    @Override
    public void visit(IndentedCodeBlock code) {
      block(() -> styled(Style.CODE, () -> out.append(code.getLiteral().stripTrailing())));
    }

    @Override
    public void visit(HtmlBlock html) {
      block(() -> out.append(html.getLiteral().stripTrailing()));
    }

    @Override
    public void visit(ThematicBreak rule) {
      block(() -> out.append("\u2500".repeat(20)));
    }

    @Override
    public void visit(Text text) {
      out.append(text.getLiteral());
    }

    @Override
    public void visit(Code code) {
      styled(Style.CODE, () -> out.append(code.getLiteral()));
    }

    @Override
    public void visit(HtmlInline html) {
      out.append(html.getLiteral());
    }

    @Override
    public void visit(Emphasis e) {
      styled(Style.ITALIC, () -> children(e));
    }

    @Override
    public void visit(StrongEmphasis e) {
      styled(Style.BOLD, () -> children(e));
    }

    @Override
    public void visit(Link link) {
      int start = out.length();
      styled(Style.LINK, () -> children(link));
      String shown = out.substring(start);
      if (!link.getDestination().isEmpty() && !shown.equals(link.getDestination())) {
        out.append(" <").append(link.getDestination()).append('>');
      }
    }

    @Override
    public void visit(Image image) {
      out.append("[image: ");
      children(image);
      out.append(']');
    }

    @Override
    public void visit(SoftLineBreak b) {
      out.append(' ');
    }

    @Override
    public void visit(HardLineBreak b) {
      out.append('\n').append(indent);
    }
  }
}
