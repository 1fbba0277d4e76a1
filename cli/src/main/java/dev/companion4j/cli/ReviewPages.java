package dev.companion4j.cli;

import dev.companion4j.cli.review.BrowserLauncher;
import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.engine.Companion;

/** Mounts the review page and tells the user where it is. */
final class ReviewPages {
  static final String PATH = "/review/";

  private ReviewPages() {}

  static void mount(Companion.Builder builder) {
    builder.publicRoute(PATH + "*", ReviewPage.assetsServlet());
  }

  /** The page's address without the token, safe for logs and the ready line. */
  static String address(int port) {
    return "http://127.0.0.1:" + port + PATH;
  }

  /**
   * Opens the page with the token in the URL fragment (which browsers never send to a server), or
   * prints that URL when stderr is an interactive terminal. The token is otherwise only in the
   * owner-only discovery files.
   */
  static void announce(Companion companion, boolean open) {
    announce(companion, open, false);
  }

  /**
   * The same, before a CLI takes the terminal: its screen covers the line (Qwen Code clears the
   * scrollback too), so the line says how to find the page again.
   */
  static void announceBeforeCli(Companion companion, boolean open) {
    announce(companion, open, true);
  }

  private static void announce(Companion companion, boolean open, boolean beforeCli) {
    String url = ReviewPage.pageUrl(companion.port(), companion.authToken());
    if (open) {
      BrowserLauncher.open(url);
    } else if (System.console() != null) {
      System.err.println("Review page: " + url);
      if (beforeCli) {
        System.err.println(
            "The CLI's screen will cover this. To open the page again: `companion4j open` in this folder,"
                + " from another terminal or the CLI's shell (`!companion4j open`).");
      }
    } else {
      System.err.println(
          "Review page: "
              + address(companion.port())
              + " (it needs its token: run `companion4j open` in the"
              + " workspace, or start with --open)");
    }
  }
}
