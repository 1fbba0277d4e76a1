package dev.companion4j.cli.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.FakeModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Typing into a real CLI's TUI (Qwen Code, Gemini CLI) in a terminal, as a user does. */
public final class CliTerminal {
  /**
   * Gemini CLI takes keys that arrive together with Enter for a paste, and Enter then adds a line.
   */
  private static final Duration PASTE_GAP = Duration.ofMillis(400);

  /**
   * The TUIs take keys that follow Escape closely for the rest of an escape sequence, and drop
   * them.
   */
  private static final Duration AFTER_ESCAPE = Duration.ofSeconds(1);

  /** How long typed keys may take to show before the input box counts as having dropped them. */
  private static final Duration RETYPE_AFTER = Duration.ofSeconds(5);

  /** The placeholder both CLIs show in an empty input box. */
  private static final String EMPTY_INPUT = "Type your message";

  /** How long a dialog stays unchanged on the screen before it counts as the one to answer. */
  private static final Duration SETTLED = Duration.ofSeconds(2);

  /** The start of both CLIs' offer to connect an IDE. */
  private static final String OFFER = "Do you want to connect";

  private CliTerminal() {}

  /**
   * What a user's terminal has: their home, the PATH with the installed CLIs, a terminal type, and
   * Qwen Code's account at the fake model (a real user has their own).
   */
  public static Map<String, String> userEnvironment(
      Path home, Path bin, Path tmpDir, FakeModelServer model) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", home.toString());
    env.put("PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("TMPDIR", tmpDir.toString());
    env.put("TERM", "xterm-256color");
    env.put("LANG", "C.UTF-8");
    env.put("OPENAI_API_KEY", "sk-fake");
    env.put("OPENAI_BASE_URL", model.baseUrl());
    env.put("OPENAI_MODEL", "fake-model");
    return env;
  }

  /**
   * The README's step 4, once the CLI offers to connect the companion: No (Escape), since its Yes
   * only tries to install VS Code's extension, then IDE mode on.
   */
  public static void declineTheOfferAndEnableIde(Tmux terminal, Duration wait) throws Exception {
    terminal.press("Escape");
    await().atMost(wait).untilAsserted(() -> assertThat(terminal.screen()).doesNotContain(OFFER));
    Thread.sleep(AFTER_ESCAPE.toMillis());
    enter(terminal, "/ide enable", wait);
  }

  /**
   * Gemini CLI's first start in a folder it does not trust yet, with folder trust on (its default):
   * No to the offer to connect, then "Trust folder" (Enter, the preselected answer) to its trust
   * question. Which of the two it shows first depends on how soon it found the IDE, and the offer
   * may replace the question on the screen: each is answered once it has stayed there a while. The
   * CLI then restarts, and offers to connect again.
   */
  public static void trustTheFolder(Tmux terminal, Duration wait) throws Exception {
    String question = "Do you trust the files in this folder?";
    String restarting = "Gemini CLI is restarting to apply the trust changes";
    long deadline = System.nanoTime() + wait.toNanos();
    String shown = "";
    long shownSince = System.nanoTime();
    while (!terminal.screen().contains(restarting)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the CLI never took the answer to its trust question:\n" + terminal.screen());
      }
      String visible = terminal.visibleScreen();
      String dialog = visible.contains(OFFER) ? OFFER : visible.contains(question) ? question : "";
      if (!dialog.equals(shown)) {
        shown = dialog;
        shownSince = System.nanoTime();
      } else if (!dialog.isEmpty() && System.nanoTime() - shownSince > SETTLED.toNanos()) {
        terminal.press(dialog.equals(OFFER) ? "Escape" : "Enter");
        shown = "";
      }
      Thread.sleep(200);
    }
  }

  /**
   * {@link #trustTheFolder}, then the restarted CLI's offer answered as in {@link
   * #declineTheOfferAndEnableIde}.
   */
  public static void trustTheFolderAndEnableIde(Tmux gemini, Duration wait) throws Exception {
    trustTheFolder(gemini, wait);
    await().atMost(wait).untilAsserted(() -> assertThat(gemini.visibleScreen()).contains(OFFER));
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
