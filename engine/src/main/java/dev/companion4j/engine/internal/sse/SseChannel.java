package dev.companion4j.engine.internal.sse;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * One server-sent-events response, written without ever blocking the caller: frames wait in a
 * bounded queue and go out as the client reads. A client that stops reading fills the queue or
 * holds a write past the stall bound; the owner then closes the channel, and nobody else waits.
 *
 * <p>Frames sent with a key replace a queued, unwritten frame of the same key in place, so a slow
 * reader gets the newest state rather than every intermediate one.
 *
 * <p>Thread-safe. {@link Listener#closed} runs once, on the thread that noticed the end (a Jetty
 * thread, or the caller of {@link #send} or {@link #close}), never while a lock is held.
 */
public final class SseChannel {
  private static final byte[] HEARTBEAT = ": \n\n".getBytes(StandardCharsets.UTF_8);

  /** Why a channel ended. */
  public enum End {
    /** Closed by its owner, e.g. on shutdown or when its session ended. */
    CLOSED,
    /** The client went away: a write failed or the request ended. */
    CLIENT_GONE,
    /** More frames waited than the limits allow. */
    OVERFLOW,
    /** A write made no progress for longer than the stall bound. */
    STALLED
  }

  /** Told once when the channel ends. */
  public interface Listener {
    void closed(SseChannel channel, End end);
  }

  /**
   * @param maxFrames the most frames waiting at once
   * @param maxBytes the most bytes waiting at once
   */
  public record Limits(int maxFrames, long maxBytes) {}

  private final AsyncContext async;
  private final ServletOutputStream out;
  private final HttpServletRequest request;
  private final LongSupplier nanoClock;
  private final Listener listener;

  private final FrameQueue queue;
  private boolean needsFlush;

  /** An orderly close waits for the queue to go out before it completes the response. */
  private boolean draining;

  /** Set once the container first calls the write listener; writing before that is not allowed. */
  private boolean writable;

  /** When the output last refused a write (isReady false); 0 while it accepts them. */
  private long blockedSinceNanos;

  private End end;

  private SseChannel(
      HttpServletRequest request,
      AsyncContext async,
      ServletOutputStream out,
      Limits limits,
      LongSupplier nanoClock,
      Listener listener) {
    this.request = request;
    this.async = async;
    this.out = out;
    this.queue = new FrameQueue(limits);
    this.nanoClock = nanoClock;
    this.listener = listener;
  }

  /**
   * Answers {@code request} with an open event stream.
   *
   * @param nanoClock a monotonic clock, as {@link System#nanoTime()}
   */
  public static SseChannel open(
      HttpServletRequest request,
      HttpServletResponse response,
      Limits limits,
      LongSupplier nanoClock,
      Listener listener)
      throws IOException {
    response.setStatus(200);
    response.setContentType("text/event-stream");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.setHeader("Cache-Control", "no-cache");
    response.setHeader("X-Accel-Buffering", "no");
    // The connection ends with the stream: it is watched for the client's hang-up, never reused.
    response.setHeader("Connection", "close");
    AsyncContext async = request.startAsync();
    async.setTimeout(0);
    SseChannel channel =
        new SseChannel(request, async, response.getOutputStream(), limits, nanoClock, listener);
    async.addListener(channel.new Ends());
    // Non-blocking from here on: the first isReady() call happens inside the listener.
    channel.out.setWriteListener(channel.new Writes());
    channel.watchForHangUp();
    return channel;
  }

  /**
   * The SSE frame of one event: {@code event:} and one {@code data:} line (JSON has no newlines).
   */
  public static byte[] frame(String event, String jsonData) {
    return ("event: " + event + "\ndata: " + jsonData + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Queues a frame and writes what the client will take now.
   *
   * @param key replaces a queued, unwritten frame with the same key; null to always append
   * @return false when the channel has ended or this frame overflowed it (it is then closed)
   */
  public boolean send(String key, byte[] frame) {
    return offer(queue -> queue.add(key, frame));
  }

  /**
   * Queues every frame waiting in {@code waiting}, keys kept, and empties it; like {@link #send}.
   */
  public boolean sendAll(FrameQueue waiting) {
    return offer(waiting::drainTo);
  }

  private boolean offer(Predicate<FrameQueue> add) {
    End failure;
    synchronized (this) {
      if (end != null) {
        return false;
      }
      failure = add.test(queue) ? drain() : End.OVERFLOW;
    }
    if (failure != null) {
      finish(failure);
      return false;
    }
    return true;
  }

  /** Writes a comment when nothing else waits; a write is how a vanished client is noticed. */
  public void heartbeat() {
    synchronized (this) {
      if (end != null || !queue.isEmpty()) {
        return;
      }
    }
    send(null, HEARTBEAT);
  }

  /** Whether a write has waited for the client for longer than {@code boundNanos}. */
  public synchronized boolean stalledLongerThan(long boundNanos) {
    return end == null
        && blockedSinceNanos != 0
        && nanoClock.getAsLong() - blockedSinceNanos > boundNanos;
  }

  public synchronized boolean isOpen() {
    return end == null;
  }

  /**
   * Ends the stream. {@link End#CLOSED} completes the response in order; any other reason drops the
   * connection, since a client that does not read would never see the end.
   */
  public void close(End why) {
    finish(why);
  }

  /**
   * Writes queued frames while the output takes them; the caller holds the lock.
   *
   * @return {@link End#CLIENT_GONE} when a write failed, else null
   */
  private End drain() {
    if (!writable) {
      return null;
    }
    try {
      while (true) {
        if (!out.isReady()) {
          if (blockedSinceNanos == 0) {
            blockedSinceNanos = Math.max(1, nanoClock.getAsLong());
          }
          return null;
        }
        blockedSinceNanos = 0;
        byte[] next = queue.poll();
        if (next == null) {
          if (!needsFlush) {
            if (draining) {
              draining = false;
              complete();
            }
            return null;
          }
          needsFlush = false;
          out.flush();
          continue;
        }
        out.write(next);
        needsFlush = true;
      }
    } catch (IOException | IllegalStateException e) {
      return End.CLIENT_GONE;
    }
  }

  private void finish(End why) {
    boolean completeNow = false;
    boolean failedWhileDraining = false;
    synchronized (this) {
      if (end != null) {
        if (why == End.CLOSED || !draining) {
          return;
        }
        // The client failed while the last frames went out: report nothing twice, just drop it.
        draining = false;
        queue.clear();
        abort();
        return;
      }
      end = why;
      if (why == End.CLOSED && writable && (!queue.isEmpty() || needsFlush)) {
        // An orderly end still delivers what was queued, e.g. outcomes sent just before a stop.
        draining = true;
        if (drain() != null) {
          draining = false;
          failedWhileDraining = true;
          queue.clear();
        }
      } else {
        queue.clear();
        completeNow = why == End.CLOSED;
      }
    }
    if (why != End.CLOSED || failedWhileDraining) {
      abort();
    } else if (completeNow) {
      complete();
    }
    listener.closed(this, why);
  }

  private void complete() {
    try {
      async.complete();
    } catch (IllegalStateException alreadyEnded) {
      // The container ended the request first.
    }
  }

  /**
   * A client that closes its connection is noticed at once, not at the next write: nothing else
   * reads this connection while the stream is open, so the first thing readable on it is its end.
   */
  private void watchForHangUp() {
    EndPoint endPoint;
    try {
      endPoint =
          ServletContextRequest.getServletContextRequest(request)
              .getConnectionMetaData()
              .getConnection()
              .getEndPoint();
    } catch (RuntimeException e) {
      return;
    }
    endPoint.tryFillInterested(
        new Callback() {
          @Override
          public void succeeded() {
            try {
              int read = endPoint.fill(BufferUtil.allocate(1));
              if (read < 0) {
                finish(End.CLIENT_GONE);
              } else if (read == 0) {
                watchForHangUp();
              } else {
                // A client has nothing to send on its event stream; one that does is not one we
                // serve.
                finish(End.CLIENT_GONE);
              }
            } catch (IOException e) {
              finish(End.CLIENT_GONE);
            }
          }

          @Override
          public void failed(Throwable x) {
            finish(End.CLIENT_GONE);
          }

          @Override
          public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
          }
        });
  }

  /**
   * Drops the connection under the response: a client that does not read never sees an orderly end.
   */
  private void abort() {
    try {
      ServletContextRequest.getServletContextRequest(request)
          .getConnectionMetaData()
          .getConnection()
          .getEndPoint()
          .close();
    } catch (RuntimeException e) {
      complete();
    }
  }

  private final class Writes implements WriteListener {
    @Override
    public void onWritePossible() {
      End failure;
      synchronized (SseChannel.this) {
        if (end != null && !draining) {
          return;
        }
        writable = true;
        failure = drain();
      }
      if (failure != null) {
        finish(failure);
      }
    }

    @Override
    public void onError(Throwable t) {
      finish(End.CLIENT_GONE);
    }
  }

  private final class Ends implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      finish(End.CLIENT_GONE);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      finish(End.CLIENT_GONE);
    }

    @Override
    public void onError(AsyncEvent event) {
      finish(End.CLIENT_GONE);
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      // Never restarted.
    }
  }
}
