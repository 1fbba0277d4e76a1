package dev.companion4j.cli.testing;

import dev.companion4j.cli.testing.EventTap.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The editor API's event stream ({@code GET /editor/events/stream}) read as the review page reads
 * it: continuously, every event kept.
 */
public final class EditorEvents implements AutoCloseable {
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final CompletableFuture<HttpResponse<InputStream>> response;
  private volatile boolean ended;

  private EditorEvents(CompanionProcess companion) {
    HttpRequest request =
        HttpRequest.newBuilder(
                java.net.URI.create(
                    "http://127.0.0.1:" + companion.port() + "/editor/events/stream"))
            .header("Authorization", "Bearer " + companion.token())
            .header("Accept", "text/event-stream")
            .GET()
            .build();
    response = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
    response.thenAcceptAsync(
        r -> {
          try (InputStream body = r.body()) {
            EventTap.readInto(body, events);
          } catch (IOException | RuntimeException e) {
            // The stream ended under us: the companion stopped or the test closed it.
          } finally {
            ended = true;
          }
        });
  }

  /** Subscribes and waits until the stream is answered with 200. */
  public static EditorEvents subscribe(CompanionProcess companion) {
    EditorEvents e = new EditorEvents(companion);
    HttpResponse<InputStream> r =
        e.response.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join();
    if (r.statusCode() != 200) {
      throw new AssertionError("event stream refused: " + r.statusCode());
    }
    return e;
  }

  public List<Event> all() {
    return List.copyOf(events);
  }

  public List<Event> named(String name) {
    return events.stream().filter(e -> e.name().equals(name)).toList();
  }

  public long count(String name) {
    return events.stream().filter(e -> e.name().equals(name)).count();
  }

  /** Whether the companion ended the stream. */
  public boolean ended() {
    return ended;
  }

  @Override
  public void close() {
    response.thenAccept(
        r -> {
          try {
            r.body().close();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    response.cancel(true);
  }
}
