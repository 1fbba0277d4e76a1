package dev.companion4j.engine.http;

import dev.companion4j.engine.internal.sse.Liveness;
import dev.companion4j.engine.internal.sse.SseChannel;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Server-sent events to any number of subscribers (pages, editor plugins) on a route a host serves
 * on a companion's port. Publishing never blocks: each subscriber has a bounded queue and is
 * written to as it reads; one that stops reading is dropped once its queue overflows or a write
 * stalls past a bound, and the others never wait for it. The companion's liveness sweep, the same
 * as for the CLIs' streams, writes a comment every few seconds, which keeps proxies from closing
 * idle streams and reveals subscribers that went away.
 *
 * <p>Thread-safe; {@link #publish} may be called from any thread.
 */
public final class EventStreams implements AutoCloseable {
  private static final SseChannel.Limits LIMITS = new SseChannel.Limits(1024, 16L * 1024 * 1024);

  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

  /** Answers {@code request} with an event stream that gets every event published from now on. */
  public void subscribe(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    subscribe(request, response, "");
  }

  /**
   * Answers {@code request} with an event stream that gets every event published from now on, for a
   * subscriber of {@code kind} ({@link #subscribersExcept}).
   */
  public void subscribe(HttpServletRequest request, HttpServletResponse response, String kind)
      throws IOException {
    SseChannel channel =
        Liveness.of(request)
            .open(
                request, response, LIMITS, (c, end) -> subscribers.removeIf(s -> s.channel() == c));
    subscribers.add(new Subscriber(channel, kind));
    // An opening comment lets the client see the stream is live before any event.
    channel.send(null, ": connected\n\n".getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends an event to every subscriber.
   *
   * @param key a later event with the same key replaces this one while a subscriber has not read it
   *     yet (for state where only the newest matters); null to always deliver
   * @param data serialized as JSON
   */
  public void publish(String event, String key, Object data) {
    byte[] frame = SseChannel.frame(event, HttpBodies.JSON.writeValueAsString(data));
    subscribers.forEach(s -> s.channel().send(key, frame));
  }

  /** How many subscribers are connected now that are not of {@code kind}. */
  public int subscribersExcept(String kind) {
    return (int) subscribers.stream().filter(s -> !kind.equals(s.kind())).count();
  }

  /** How many subscribers are connected now. */
  public int subscribers() {
    return subscribers.size();
  }

  /** Ends every stream in order; later subscribers are not served. */
  @Override
  public void close() {
    subscribers.forEach(s -> s.channel().close(SseChannel.End.CLOSED));
    subscribers.clear();
  }

  /**
   * A stream and what its reader said it is, e.g. a page that follows the stream but is no editor.
   */
  private record Subscriber(SseChannel channel, String kind) {}
}
