package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.wire.SseEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

/**
 * One session's event subscription: a reading thread that delivers frames to the listener in order
 * and reconnects when the connection drops.
 *
 * <p>A reconnect sends the last delivered id as {@code Last-Event-ID} (and the bus epoch), so the
 * daemon replays exactly what was missed; ids at or below the last delivered one are dropped, so
 * nothing is delivered twice. The delay before a reconnect is the daemon's {@code retry:} value,
 * doubled per attempt until a connection stays up for 10 s, so a daemon that accepts and closes at
 * once is not hammered; the client gives up, with a {@link SessionDied} it marks as its own
 * observation, once no connection has stayed up or brought a new event for the reconnect budget. A
 * connection silent for longer than the heartbeat timeout (the daemon sends a heartbeat comment
 * every 15 s) counts as dropped. An event longer than the cap, or any failure on the reading
 * thread, also ends the session with a {@link SessionDied}, delivered on that thread.
 *
 * <p>This class connects and owns the reading thread; the other jobs are its parts': {@link
 * EventCursor} where to resume, {@link Backoff} when to reconnect, {@link FrameReader} one
 * connection's frames, {@link StreamWatchdog} the heartbeat bound, {@link ListenerDispatch} the
 * listener.
 */
public final class EventStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);

  /** Beyond the connect timeouts: starting the reading thread and handing over the answer. */
  private static final Duration OPEN_GRACE = Duration.ofSeconds(1);

  /**
   * How the stream connects and when it gives up.
   *
   * @param connectTimeout for a connection, the answer's headers and the body of a refusal
   * @param maxEventBytes the most one event may take; a longer one ends the session
   */
  public record Settings(
      Duration connectTimeout,
      Duration reconnectBudget,
      Duration heartbeatTimeout,
      Integer maxQueued,
      int maxEventBytes) {}

  /** The stream's time: the system's, or a test's that runs reconnect delays without waiting. */
  public interface Clock {
    /** The system clock; waits are real. */
    Clock SYSTEM =
        new Clock() {
          @Override
          public long nanoTime() {
            return System.nanoTime();
          }

          @Override
          public void await(Object monitor, long nanos) throws InterruptedException {
            TimeUnit.NANOSECONDS.timedWait(monitor, nanos);
          }
        };

    /** A monotonic time in nanoseconds, as {@link System#nanoTime()}. */
    long nanoTime();

    /**
     * Waits on {@code monitor}, which the caller holds, for at most {@code nanos}; a notify on it
     * ends the wait early.
     */
    void await(Object monitor, long nanos) throws InterruptedException;
  }

  private final DaemonHttp http;
  private final String sessionId;
  private final String clientId;
  private final Settings settings;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  private final EventCursor cursor = new EventCursor();
  private final ListenerDispatch dispatch;
  private final StreamWatchdog connection;
  private final Object sleepLock = new Object();
  private final CountDownLatch opened = new CountDownLatch(1);

  private volatile boolean closed;
  private volatile CompletableFuture<HttpResponse<InputStream>> connecting;
  private volatile DaemonException openFailure;
  private long delivered;
  private String evictionReason;
  private Thread thread;
  private ScheduledFuture<?> watchdog;

  public EventStream(
      DaemonHttp http,
      String sessionId,
      String clientId,
      DaemonListener listener,
      TurnTracker turns,
      Settings settings,
      ScheduledExecutorService timer,
      Clock clock) {
    this.http = http;
    this.sessionId = sessionId;
    this.clientId = clientId;
    this.settings = settings;
    this.timer = timer;
    this.clock = clock;
    this.dispatch = new ListenerDispatch(sessionId, listener, turns, cursor);
    this.connection = new StreamWatchdog(sessionId, settings.heartbeatTimeout().toMillis(), clock);
  }

  /**
   * Opens the stream and returns once the daemon accepted it, so events of a prompt sent next are
   * not missed. It waits for the connection, and for the body of a refusal, each at most the
   * connect timeout; never for the listener, which hears of the connection on the reading thread.
   *
   * @param afterEventId replay events after this id; {@code -1} starts with live events
   * @throws DaemonException when the first connection fails or does not open within that bound
   */
  public void start(long afterEventId) {
    cursor.startAfter(afterEventId);
    thread = new Thread(this::run, "companion4j-daemon-events-" + sessionId);
    thread.setDaemon(true);
    thread.start();
    long heartbeatMillis = settings.heartbeatTimeout().toMillis();
    watchdog =
        timer.scheduleAtFixedRate(
            connection::check,
            heartbeatMillis / 4,
            Math.max(50, heartbeatMillis / 4),
            TimeUnit.MILLISECONDS);
    Duration bound = settings.connectTimeout().multipliedBy(2).plus(OPEN_GRACE);
    try {
      if (!opened.await(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        close();
        throw new DaemonException(
            "GET /session/"
                + sessionId
                + "/events: the stream did not open within "
                + bound.toMillis()
                + " ms",
            0,
            null,
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new DaemonException("subscribing to session " + sessionId + " interrupted", 0, null, e);
    }
    if (openFailure != null) {
      close();
      throw openFailure;
    }
  }

  /**
   * Where to resume if the connection drops before any event arrived: the daemon's last event id at
   * the time of a prompt, which its 202 answer carries.
   */
  public void noteDaemonCursor(long eventId) {
    cursor.noteDaemonCursor(eventId);
  }

  /** The id of the last event delivered, or {@code -1} before the first. */
  public long lastEventId() {
    return cursor.lastEventId();
  }

  @Override
  public void close() {
    closed = true;
    if (watchdog != null) {
      watchdog.cancel(false);
    }
    CompletableFuture<HttpResponse<InputStream>> attempt = connecting;
    if (attempt != null) {
      attempt.cancel(true);
    }
    connection.drop();
    synchronized (sleepLock) {
      sleepLock.notifyAll();
    }
    if (thread != null && thread != Thread.currentThread()) {
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    try {
      connectLoop();
    } catch (RuntimeException | Error e) {
      // A bug, a listener's Error or an exhausted heap: the thread ends either way, and a silent
      // end would leave the session hanging with no sign of it.
      LOG.error("the event stream of session {} failed", sessionId, e);
      String detail =
          http.redact(
              e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
      connection.drop();
      if (opened.getCount() > 0) {
        openFailure =
            new DaemonException(
                "GET /session/" + sessionId + "/events: reading the stream failed (" + detail + ")",
                0,
                null,
                e);
      } else if (!closed) {
        dispatch.giveUp("reader_failed", detail);
      }
    } finally {
      opened.countDown();
    }
  }

  private void connectLoop() {
    Backoff backoff = new Backoff(settings.reconnectBudget().toMillis());
    boolean everOpened = false;
    String detail = null;
    while (!closed) {
      boolean terminal = false;
      long connectedAt = -1;
      long deliveredBefore = delivered;
      try {
        HttpResponse<InputStream> response = connect();
        connection.watch(response.body());
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        if (response.statusCode() == 200 && contentType.startsWith("text/event-stream")) {
          response.headers().firstValue("X-Qwen-Event-Epoch").ifPresent(cursor::noteEpoch);
          if (closed) {
            break;
          }
          everOpened = true;
          // Before the listener hears of it: the subscriber waits for the daemon, not for its
          // listener.
          opened.countDown();
          dispatch.status(State.CONNECTED, backoff.attempt(), Duration.ZERO, null);
          backoff.connected();
          connectedAt = clock.nanoTime();
          evictionReason = null;
          terminal =
              FrameReader.read(
                  response.body(),
                  settings.maxEventBytes(),
                  connection::bytesArrived,
                  new FrameReader.Sink() {
                    @Override
                    public boolean event(SseEvent event) {
                      return handle(event.name(), event.data());
                    }

                    @Override
                    public void retry(long millis) {
                      backoff.retry(millis);
                    }
                  });
          detail =
              evictionReason != null ? "evicted by the daemon: " + evictionReason : "stream ended";
        } else {
          String route = "GET /session/" + sessionId + "/events";
          DaemonException error =
              response.statusCode() == 200
                  ? new DaemonException(
                      route
                          + " answered "
                          + http.redact(contentType)
                          + " instead of an event stream",
                      200,
                      null,
                      null)
                  : http.error(
                      route,
                      response.statusCode(),
                      http.readErrorBody(route, response.body(), settings.connectTimeout()));
          if (!everOpened) {
            openFailure = error;
            return;
          }
          if (isFinal(response.statusCode())) {
            dispatch.giveUp(
                response.statusCode() == 404 ? "session_not_found" : "rejected",
                error.getMessage());
            return;
          }
          detail = error.getMessage();
        }
      } catch (FrameReader.EventTooLargeException e) {
        // The daemon would replay the same event on a reconnect.
        connection.drop();
        if (!closed) {
          dispatch.giveUp("event_too_large", e.getMessage());
        }
        return;
      } catch (IOException e) {
        if (closed) {
          break;
        }
        if (!everOpened) {
          openFailure = http.unreachable("GET /session/" + sessionId + "/events", e);
          return;
        }
        detail = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      } finally {
        connection.drop();
      }
      if (terminal || closed) {
        break;
      }
      long delay = backoff.next(clock.nanoTime(), connectedAt, delivered > deliveredBefore);
      if (delay < 0) {
        dispatch.giveUp(backoff.giveUpReason(connectedAt >= 0), detail);
        return;
      }
      LOG.info(
          "event stream of session {} dropped ({}); reconnecting in {} ms",
          sessionId,
          detail,
          delay);
      dispatch.status(State.RECONNECTING, backoff.attempt(), Duration.ofMillis(delay), detail);
      sleep(delay);
    }
    if (closed) {
      dispatch.status(State.CLOSED, backoff.attempt(), Duration.ZERO, null);
    }
  }

  /** Connects; a {@link #close()} meanwhile abandons the attempt. */
  private HttpResponse<InputStream> connect() throws IOException {
    CompletableFuture<HttpResponse<InputStream>> attempt =
        http.openStream(path(), clientId, cursor.resumeHeaders(), settings.connectTimeout());
    connecting = attempt;
    if (closed) {
      attempt.cancel(true);
    }
    try {
      // The request's own timeout ends it sooner; this bound only makes sure.
      return attempt.get(
          settings.connectTimeout().plus(OPEN_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      attempt.cancel(true);
      throw new IOException("no answer within " + settings.connectTimeout().toMillis() + " ms", e);
    } catch (CancellationException e) {
      throw new IOException("connection attempt abandoned", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    } finally {
      connecting = null;
    }
  }

  private static boolean isFinal(int status) {
    return status == 400 || status == 401 || status == 403 || status == 404 || status == 410;
  }

  private boolean handle(String sseEvent, String data) {
    DaemonEvent event = EventDecoder.decode(sseEvent, data, sessionId, http.redactor());
    if (!cursor.advance(event)) {
      LOG.debug("dropping replayed event {} of session {}", event.meta().id(), sessionId);
      return false;
    }
    if (event instanceof Unknown unknown && "client_evicted".equals(unknown.type())) {
      evictionReason = evictionReason(data);
    }
    delivered++;
    dispatch.deliver(event);
    if (event instanceof SessionDied died) {
      dispatch.status(State.LOST, 0, Duration.ZERO, "session died: " + died.reason());
      return true;
    }
    if (event instanceof SessionClosed closedEvent) {
      dispatch.status(State.LOST, 0, Duration.ZERO, "session closed: " + closedEvent.reason());
      return true;
    }
    return false;
  }

  private String evictionReason(String data) {
    try {
      return http.redact(Json.text(Json.MAPPER.readTree(data).path("data"), "reason"));
    } catch (JacksonException e) {
      return null;
    }
  }

  private String path() {
    String path = "/session/" + DaemonHttp.segment(sessionId) + "/events";
    return settings.maxQueued() == null ? path : path + "?maxQueued=" + settings.maxQueued();
  }

  private void sleep(long millis) {
    long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (sleepLock) {
      long left;
      while (!closed && (left = deadline - clock.nanoTime()) > 0) {
        try {
          clock.await(sleepLock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          closed = true;
        }
      }
    }
  }
}
