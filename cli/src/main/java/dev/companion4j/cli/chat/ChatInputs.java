package dev.companion4j.cli.chat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * What a terminal chat reacts to, in arrival order: typed lines, Ctrl-C, ended turns, the end of
 * the session. Any thread adds; the chat's own thread takes them one at a time.
 */
final class ChatInputs {
  /** One input; {@code text} is the typed line of a {@link Kind#LINE}. */
  record Input(Kind kind, String text) {}

  enum Kind {
    LINE,
    END_OF_INPUT,
    INTERRUPT,
    TURN_ENDED,
    SESSION_ENDED
  }

  /** What a chat does with its inputs; all on the thread that runs {@link #loop}. */
  interface Chat {
    boolean turnRunning();

    /** Ctrl-C during a turn. */
    void cancel();

    /** A turn ended, perhaps one no longer running. */
    void turnEnded();

    /** A typed line, stripped; false to leave the chat. */
    boolean line(String text);
  }

  private final BlockingQueue<Input> queue = new LinkedBlockingQueue<>();

  void add(Kind kind) {
    queue.add(new Input(kind, null));
  }

  /**
   * Handles the inputs in arrival order until the chat ends.
   *
   * @return the exit code: 0 when the user left or the input ended, 1 when the session ended, 130
   *     when the waiting thread was interrupted
   */
  int loop(ChatView view, Chat chat) {
    while (true) {
      Input input;
      try {
        input = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 130;
      }
      switch (input.kind()) {
        case SESSION_ENDED:
          return 1;
        case END_OF_INPUT:
          return 0;
        case INTERRUPT:
          if (!chat.turnRunning()) {
            view.line("[bye]");
            return 0;
          }
          view.line("^C cancelling the turn...");
          chat.cancel();
          break;
        case TURN_ENDED:
          chat.turnEnded();
          break;
        case LINE:
          view.userEnteredLine();
          if (!chat.line(input.text().strip())) {
            return 0;
          }
          break;
      }
    }
  }

  /**
   * Reads the terminal's lines on a thread of their own, then adds {@link Kind#END_OF_INPUT}; a
   * read that fails is said to {@code say} first.
   */
  void readLines(InputStream in, Consumer<String> say) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(in, Charset.defaultCharset()))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  queue.add(new Input(Kind.LINE, line));
                }
              } catch (IOException e) {
                say.accept("[input failed: " + e.getMessage() + "]");
              }
              add(Kind.END_OF_INPUT);
            },
            "companion4j-chat-input");
    reader.setDaemon(true);
    reader.start();
  }
}
