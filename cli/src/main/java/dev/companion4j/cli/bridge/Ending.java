package dev.companion4j.cli.bridge;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** How a bridge ends: its exit code, and the lines it leaves on stderr. Any thread. */
final class Ending {
  private final PrintStream stderr;
  private final AtomicBoolean finishing = new AtomicBoolean();
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();

  Ending(PrintStream stderr) {
    this.stderr = stderr;
  }

  /** Ends the bridge with {@code code}; the first caller's line is the one the user reads. */
  void finish(int code, String line) {
    if (finishing.compareAndSet(false, true)) {
      if (line != null) {
        note(line);
      }
      exit.complete(code);
    }
  }

  boolean isDone() {
    return exit.isDone();
  }

  /** Waits for the bridge's end; returns one of the {@code Bridge.EXIT_} codes. */
  int await() {
    return exit.join();
  }

  /** One line on stderr, for the user reading the CLI's log. */
  void note(String line) {
    stderr.println("companion4j bridge: " + line);
    stderr.flush();
  }
}
