package dev.companion4j.engine.internal.sse;

import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The one liveness sweep of a companion's event streams, the CLIs' and those of the host's routes
 * alike: every {@link #INTERVAL}, on the engine's scheduler, each open stream gets a heartbeat (a
 * write is how a vanished reader shows where the connection's end cannot be seen), or is closed as
 * {@link SseChannel.End#STALLED} once a write has waited for its reader longer than {@link
 * #STALL_BOUND}. Streams are swept from the moment they open through this until they end.
 *
 * <p>Thread-safe.
 */
public final class Liveness {
  /** How often streams get a heartbeat and are checked, and sessions with them. */
  public static final Duration INTERVAL = Duration.ofSeconds(5);

  /** How long a write may wait for a reader that does not read before its stream is closed. */
  public static final Duration STALL_BOUND = Duration.ofSeconds(10);

  /** Where the routes of a companion find its liveness: an attribute of their servlet context. */
  private static final String ATTRIBUTE = Liveness.class.getName();

  private final LongSupplier nanoClock;
  private final Set<SseChannel> open = ConcurrentHashMap.newKeySet();

  /**
   * @param nanoClock a monotonic clock, as {@link System#nanoTime()}; the engine scheduler's
   */
  public Liveness(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** Makes this the liveness of every stream opened for a request in {@code context}. */
  public void serve(ServletContext context) {
    context.setAttribute(ATTRIBUTE, this);
  }

  /**
   * The liveness of the companion serving {@code request}.
   *
   * @throws IllegalStateException when it is not served by a companion, so no stream would be swept
   */
  public static Liveness of(HttpServletRequest request) {
    if (request.getServletContext().getAttribute(ATTRIBUTE) instanceof Liveness liveness) {
      return liveness;
    }
    throw new IllegalStateException("event streams are served only on a companion's port");
  }

  /**
   * Answers {@code request} with an event stream, swept until it ends; see {@link SseChannel#open}.
   */
  public SseChannel open(
      HttpServletRequest request,
      HttpServletResponse response,
      SseChannel.Limits limits,
      SseChannel.Listener listener)
      throws IOException {
    SseChannel channel =
        SseChannel.open(
            request,
            response,
            limits,
            nanoClock,
            (c, end) -> {
              open.remove(c);
              listener.closed(c, end);
            });
    open.add(channel);
    if (!channel.isOpen()) {
      // It ended before it was added; its listener has run already.
      open.remove(channel);
    }
    return channel;
  }

  /** One round over the open streams; on the engine thread. */
  public void sweep() {
    for (SseChannel channel : open) {
      if (channel.stalledLongerThan(STALL_BOUND.toNanos())) {
        channel.close(SseChannel.End.STALLED);
      } else {
        channel.heartbeat();
      }
    }
  }
}
