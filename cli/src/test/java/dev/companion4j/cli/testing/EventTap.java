package dev.companion4j.cli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;

/** The editor API's event stream, read as an editor reads it, with every event kept for assertions. */
public final class EventTap implements AutoCloseable {
  /** One server-sent event with its JSON data. */
  public record Event(String name, JsonNode data) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final Stream<String> lines;

  private EventTap(Stream<String> lines) {
    this.lines = lines;
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
      HttpResponse<Stream<String>> response =
          HttpClient.newHttpClient()
              .send(companion.request("/editor/events/stream" + query).timeout(Duration.ofMinutes(5)).build(),
                  HttpResponse.BodyHandlers.ofLines());
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
    String name = null;
    List<String> data = new ArrayList<>();
    try {
      for (String line : (Iterable<String>) lines::iterator) {
        if (line.isEmpty()) {
          if (name != null && !data.isEmpty()) {
            events.add(new Event(name, CompanionProcess.JSON.readTree(String.join("\n", data))));
          }
          name = null;
          data.clear();
        } else if (line.startsWith("event:")) {
          name = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
          data.add(line.substring(5).strip());
        }
      }
    } catch (UncheckedIOException closed) {
      // The stream ended with the companion or with close().
    }
  }

  /** Waits for the first event named {@code name} whose data matches, and returns its data. */
  public JsonNode await(String name, Predicate<JsonNode> matching) {
    return Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> events.stream().filter(e -> e.name().equals(name) && matching.test(e.data())).findFirst(),
            found -> found.isPresent())
        .orElseThrow()
        .data();
  }

  public List<Event> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    lines.close();
  }
}
