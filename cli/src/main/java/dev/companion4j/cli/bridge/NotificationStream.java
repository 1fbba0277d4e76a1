package dev.companion4j.cli.bridge;

import dev.companion4j.wire.SseDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The session's notification stream ({@code GET /mcp}), read on {@code companion4j-bridge-stream}
 * and relayed to the CLI; its unexpected end is the companion's departure ({@link
 * Bridge#EXIT_LOST}).
 */
final class NotificationStream {
  private final CompanionTarget target;
  private final CompanionSession session;
  private final Ending ending;
  private final Supplier<SseDecoder> relay;

  private volatile boolean closing;
  private volatile InputStream stream;

  /**
   * @param relay a decoder that hands the stream's messages on to the CLI
   */
  NotificationStream(
      CompanionTarget target, CompanionSession session, Ending ending, Supplier<SseDecoder> relay) {
    this.target = target;
    this.session = session;
    this.ending = ending;
    this.relay = relay;
  }

  /** Opens the stream on {@code companion4j-bridge-stream}. */
  void start() {
    Thread reader = new Thread(this::read, "companion4j-bridge-stream");
    reader.setDaemon(true);
    reader.start();
  }

  /** Runs on {@code companion4j-bridge-stream}. */
  private void read() {
    HttpRequest request =
        session
            .request()
            .header("Accept", "text/event-stream")
            .timeout(CompanionSession.ACCEPT_TIMEOUT)
            .GET()
            .build();
    try {
      HttpResponse<InputStream> response =
          session.http().send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() == 405) {
          ending.note(
              target.description()
                  + " offers no notification stream: no context and no diff outcome will reach the CLI");
          return;
        }
        if (response.statusCode() != 200) {
          String reason =
              Bridge.oneLine(
                  new String(body.readNBytes(Bridge.MAX_ERROR_BYTES), StandardCharsets.UTF_8));
          ending.finish(
              Bridge.EXIT_LOST,
              target.description()
                  + " refused the notification stream (HTTP "
                  + response.statusCode()
                  + (reason.isEmpty() ? "" : ": " + reason)
                  + ")");
          return;
        }
        stream = body;
        if (closing) {
          return;
        }
        relay.get().read(body);
      }
      if (!closing) {
        ending.finish(Bridge.EXIT_LOST, target.description() + " ended the notification stream");
      }
    } catch (IOException e) {
      if (!closing) {
        ending.finish(
            Bridge.EXIT_LOST, "lost " + target.description() + ": " + CompanionSession.why(e));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** From now on the stream's end is the bridge's own doing, not the companion's departure. */
  void expectEnd() {
    closing = true;
  }

  /** Closes the stream, if open; its reader then ends quietly. */
  void close() {
    closing = true;
    InputStream s = stream;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // Closing is all that is wanted.
      }
    }
  }
}
