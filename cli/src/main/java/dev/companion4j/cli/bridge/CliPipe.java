package dev.companion4j.cli.bridge;

import dev.companion4j.wire.LineSplitter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * The CLI's side of a bridge: its messages on stdin, one JSON line each, read on {@code
 * companion4j-bridge-stdin}, and the messages bound for it on stdout. The CLI closing either ends
 * the bridge ({@link Bridge#EXIT_ENDED}).
 */
final class CliPipe {
  private final OutputStream stdout;
  private final Ending ending;

  CliPipe(OutputStream stdout, Ending ending) {
    this.stdout = stdout;
    this.ending = ending;
  }

  /** Reads {@code in} on {@code companion4j-bridge-stdin}, handing each line to {@code lines}. */
  void start(InputStream in, Consumer<String> lines) {
    Thread reader = new Thread(() -> read(in, lines), "companion4j-bridge-stdin");
    reader.setDaemon(true);
    reader.start();
  }

  /** Runs on {@code companion4j-bridge-stdin}. */
  private void read(InputStream in, Consumer<String> fromCli) {
    LineSplitter lines =
        new LineSplitter(
            Bridge.MAX_MESSAGE_BYTES,
            false,
            LineSplitter.Lines.of(
                line -> {
                  fromCli.accept(line);
                },
                () -> {
                  emit(
                      JsonRpc.error(
                          null,
                          JsonRpc.INVALID_REQUEST,
                          "Invalid Request: a message longer than "
                              + Bridge.MAX_MESSAGE
                              + " was dropped"));
                }));
    byte[] buffer = new byte[64 * 1024];
    try {
      int n;
      while (!ending.isDone() && (n = in.read(buffer)) >= 0) {
        lines.feed(buffer, 0, n);
      }
      lines.finish();
    } catch (IOException e) {
      // A closed stdin is the CLI's goodbye, however it closed.
    }
    ending.finish(Bridge.EXIT_ENDED, null);
  }

  /**
   * Writes one message to the CLI. Runs on whichever thread has it for the CLI; writes are
   * serialised. A CLI that closed its end has ended the session.
   */
  void emit(JsonNode message) {
    byte[] bytes = JsonRpc.JSON.writeValueAsBytes(message);
    synchronized (stdout) {
      try {
        stdout.write(bytes);
        stdout.write('\n');
        stdout.flush();
      } catch (IOException e) {
        ending.finish(Bridge.EXIT_ENDED, null);
      }
    }
  }
}
