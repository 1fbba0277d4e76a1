package dev.companion4j.cli.chat;

import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.Tmux;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/** A terminal chat as its user meets it in tmux: typing lines and waiting for what shows. */
public final class TerminalScreen {
  private final Tmux terminal;
  private final Duration limit;

  public TerminalScreen(Tmux terminal, Duration limit) {
    this.terminal = terminal;
    this.limit = limit;
  }

  /** Types the line and presses Enter. */
  public void send(String line) throws Exception {
    terminal.type(line);
    terminal.press("Enter");
  }

  /** How often {@code part} shows on the screen and in its history. */
  public long count(String part) throws Exception {
    return Pattern.compile(Pattern.quote(part)).matcher(terminal.screen()).results().count();
  }

  /** Waits until the screen shows all parts. */
  public void awaitScreen(String... parts) {
    awaitThat(
        "the screen shows " + String.join(" and ", parts),
        () -> {
          String screen = terminal.screen();
          for (String part : parts) {
            if (!screen.contains(part)) {
              return false;
            }
          }
          return true;
        });
  }

  /** Waits for a condition; on timeout the failure shows the terminal. */
  public void awaitThat(String what, Callable<Boolean> condition) {
    try {
      await().atMost(limit).until(condition);
    } catch (ConditionTimeoutException e) {
      String screen;
      try {
        screen = terminal.screen();
      } catch (Exception unreadable) {
        screen = "(unreadable: " + unreadable.getMessage() + ")";
      }
      throw new AssertionError(
          "timed out waiting until " + what + "; the terminal shows:\n" + screen, e);
    }
  }
}
