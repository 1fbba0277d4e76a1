package dev.companion4j.cli.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

/** Typing into a real CLI's TUI (Qwen Code, Gemini CLI) in a terminal, as a user does. */
public final class CliTerminal {
  /** Gemini CLI takes keys that arrive together with Enter for a paste, and Enter then adds a line. */
  private static final Duration PASTE_GAP = Duration.ofMillis(400);
  /** The TUIs take keys that follow Escape closely for the rest of an escape sequence, and drop them. */
  private static final Duration AFTER_ESCAPE = Duration.ofSeconds(1);

  /** How long typed keys may take to show before the input box counts as having dropped them. */
  private static final Duration RETYPE_AFTER = Duration.ofSeconds(5);
  /** The placeholder both CLIs show in an empty input box. */
  private static final String EMPTY_INPUT = "Type your message";

  private CliTerminal() {}

  /**
   * The README's step 4, once the CLI offers to connect the companion: No (Escape), since its Yes
   * only tries to install VS Code's extension, then IDE mode on.
   */
  public static void declineTheOfferAndEnableIde(Tmux terminal, Duration wait) throws Exception {
    terminal.press("Escape");
    await().atMost(wait).untilAsserted(() -> assertThat(terminal.screen()).doesNotContain("Do you want to connect"));
    Thread.sleep(AFTER_ESCAPE.toMillis());
    enter(terminal, "/ide enable", wait);
  }

  /**
   * Gemini CLI's first start in a folder at its defaults (folder trust on), once it offers to
   * connect the companion: No, then the person trusts the folder when asked; the CLI restarts,
   * offers again, and is answered as in {@link #declineTheOfferAndEnableIde}.
   */
  public static void trustTheFolderAndEnableIde(Tmux gemini, Duration wait) throws Exception {
    gemini.press("Escape");
    awaitScreen(gemini, "Do you trust the files in this folder?", wait);
    gemini.press("Enter");
    awaitScreen(gemini, "Do you want to connect Companion4J to Gemini CLI?", wait);
    declineTheOfferAndEnableIde(gemini, wait);
  }

  /**
   * Types a line: the keys, then Enter once they are on the screen. A busy TUI that read the keys
   * together with an Escape before them took them for an escape sequence and dropped them all;
   * while its input box still shows its placeholder, the keys are typed again.
   */
  public static void enter(Tmux terminal, String line, Duration wait) throws Exception {
    String shown = line.length() > 40 ? line.substring(0, 40) : line;
    long deadline = System.nanoTime() + wait.toNanos();
    terminal.type(line);
    while (!terminal.screen().contains(shown)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the CLI never showed " + shown + ":\n" + terminal.screen());
      }
      Thread.sleep(RETYPE_AFTER.toMillis());
      String screen = terminal.screen();
      if (!screen.contains(shown) && screen.contains(EMPTY_INPUT)) {
        terminal.type(line);
      }
    }
    Thread.sleep(PASTE_GAP.toMillis());
    terminal.press("Enter");
  }

  public static void awaitScreen(Tmux terminal, String text, Duration wait) {
    await().atMost(wait).untilAsserted(() -> assertThat(terminal.screen()).contains(text));
  }
}
