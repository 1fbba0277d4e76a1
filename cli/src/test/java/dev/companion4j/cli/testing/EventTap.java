package dev.companion4j.cli.testing;

import dev.companion4j.wire.SseDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;

/**
 * The editor API's event stream, read as an editor reads it, with every event kept for assertions.
 */
public final class EventTap implements AutoCloseable {
  /** One server-sent event with its JSON data. */
  public record Event(String name, JsonNode data) {}

  /** Far above any event the companion sends (a diff's two sides, at most 8 MiB each). */
  private static final int MAX_EVENT_BYTES = 64 * 1024 * 1024;

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final InputStream body;

  private EventTap(InputStream body) {
    this.body = body;
    Thread reader = new Thread(this::read, "event-tap");
    reader.setDaemon(true);
    reader.start();
  }

  /** Subscribes and returns once the stream is open, so that no later event is missed. */
  public static EventTap open(CompanionProcess companion) {
    return open(companion, "");
  }

  /** Subscribes as the review page does, which says it is no editor. */
  public static EventTap asReviewPage(CompanionProcess companion) {
    return open(companion, "?client=review-page");
  }

  private static EventTap open(CompanionProcess companion, String query) {
    try {
      HttpResponse<InputStream> response =
          HttpClient.newHttpClient()
              .send(
                  companion
                      .request("/editor/events/stream" + query)
                      .timeout(Duration.ofMinutes(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() != 200) {
        throw new AssertionError("event stream refused: " + response.statusCode());
      }
      return new EventTap(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private void read() {
    try {
      readInto(body, events);
    } catch (IOException closed) {
      // The stream ended with the companion or with close().
    }
  }

  /** Reads the editor API's events from {@code body} into {@code sink} until the stream ends. */
  static void readInto(InputStream body, List<Event> sink) throws IOException {
    new SseDecoder(
            MAX_EVENT_BYTES,
            SseDecoder.Listener.of(
                event -> {
                  sink.add(new Event(event.name(), CompanionProcess.JSON.readTree(event.data())));
                },
                () -> {
                  throw new AssertionError(
                      "an event of the editor API's stream is longer than "
                          + MAX_EVENT_BYTES
                          + " bytes");
                }))
        .read(body);
  }

  /** Waits for the first event named {@code name} whose data matches, and returns its data. */
  public JsonNode await(String name, Predicate<JsonNode> matching) {
    return Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                events.stream()
                    .filter(e -> e.name().equals(name) && matching.test(e.data()))
                    .findFirst(),
            found -> found.isPresent())
        .orElseThrow()
        .data();
  }

  public List<Event> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
