package dev.companion4j.daemon.internal;

import dev.companion4j.daemon.ConnectionStatus;
import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.EventMeta;
import dev.companion4j.wire.SseDecoder;
import dev.companion4j.wire.SseEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
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
 */
public final class EventStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
  private static final long MIN_RETRY_MS = 100;
  private static final long MAX_RETRY_MS = 30_000;

  /** How long a connection must stay up before the backoff starts again from the daemon's delay. */
  private static final long STABLE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

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
  private final DaemonListener listener;
  private final TurnTracker turns;
  private final Settings settings;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  private final Object sleepLock = new Object();
  private final CountDownLatch opened = new CountDownLatch(1);

  private volatile boolean closed;
  private volatile InputStream current;
  private volatile CompletableFuture<HttpResponse<InputStream>> connecting;
  private volatile long fallbackCursor = -1;
  private volatile long lastBytesNanos;
  private volatile long lastEventId;
  private volatile DaemonException openFailure;
  private String epoch;
  private long retryMillis = 3000;
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
    this.listener = listener;
    this.turns = turns;
    this.settings = settings;
    this.timer = timer;
    this.clock = clock;
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
    lastEventId = afterEventId;
    thread = new Thread(this::run, "companion4j-daemon-events-" + sessionId);
    thread.setDaemon(true);
    thread.start();
    long heartbeatMillis = settings.heartbeatTimeout().toMillis();
    watchdog =
        timer.scheduleAtFixedRate(
            this::checkHeartbeat,
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
    if (fallbackCursor < 0) {
      fallbackCursor = eventId;
    }
  }

  /** The id of the last event delivered, or {@code -1} before the first. */
  public long lastEventId() {
    return lastEventId;
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
    closeCurrent();
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
      closeCurrent();
      if (opened.getCount() > 0) {
        openFailure =
            new DaemonException(
                "GET /session/" + sessionId + "/events: reading the stream failed (" + detail + ")",
                0,
                null,
                e);
      } else if (!closed) {
        giveUp("reader_failed", detail);
      }
    } finally {
      opened.countDown();
    }
  }

  private void connectLoop() {
    int attempt = 0;
    long downSince = 0;
    boolean acceptedWhileDown = false;
    boolean everOpened = false;
    String detail = null;
    while (!closed) {
      boolean terminal = false;
      long connectedAt = -1;
      long deliveredBefore = delivered;
      try {
        HttpResponse<InputStream> response = connect();
        current = response.body();
        lastBytesNanos = clock.nanoTime();
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        if (response.statusCode() == 200 && contentType.startsWith("text/event-stream")) {
          response.headers().firstValue("X-Qwen-Event-Epoch").ifPresent(e -> epoch = e);
          if (closed) {
            break;
          }
          everOpened = true;
          // Before the listener hears of it: the subscriber waits for the daemon, not for its
          // listener.
          opened.countDown();
          status(State.CONNECTED, attempt, Duration.ZERO, null);
          acceptedWhileDown |= downSince != 0;
          connectedAt = clock.nanoTime();
          evictionReason = null;
          terminal = pump(response.body());
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
            giveUp(
                response.statusCode() == 404 ? "session_not_found" : "rejected",
                error.getMessage());
            return;
          }
          detail = error.getMessage();
        }
      } catch (EventTooLargeException e) {
        // The daemon would replay the same event on a reconnect.
        closeCurrent();
        if (!closed) {
          giveUp("event_too_large", e.getMessage());
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
        closeCurrent();
      }
      if (terminal || closed) {
        break;
      }
      long now = clock.nanoTime();
      if (connectedAt >= 0) {
        // Only a connection that stayed up resets the backoff; one that brought new events also
        // shows the daemon is alive, so it restarts the reconnect budget.
        boolean stable = now - connectedAt >= STABLE_AFTER_NANOS;
        if (stable) {
          attempt = 0;
        }
        if (stable || delivered > deliveredBefore) {
          downSince = 0;
          acceptedWhileDown = false;
        }
      }
      if (downSince == 0) {
        downSince = now;
      }
      attempt++;
      long delay = Math.min(MAX_RETRY_MS, retryMillis << Math.min(attempt - 1, 8));
      long down = TimeUnit.NANOSECONDS.toMillis(now - downSince);
      if (down + delay > settings.reconnectBudget().toMillis()) {
        // Named by how the last attempt ended: a daemon that now refuses connections is gone,
        // even if it accepted one more while shutting down.
        giveUp(
            acceptedWhileDown && connectedAt >= 0 ? "stream_unstable" : "daemon_unreachable",
            detail);
        return;
      }
      LOG.info(
          "event stream of session {} dropped ({}); reconnecting in {} ms",
          sessionId,
          detail,
          delay);
      status(State.RECONNECTING, attempt, Duration.ofMillis(delay), detail);
      sleep(delay);
    }
    if (closed) {
      status(State.CLOSED, attempt, Duration.ZERO, null);
    }
  }

  /** Connects; a {@link #close()} meanwhile abandons the attempt. */
  private HttpResponse<InputStream> connect() throws IOException {
    CompletableFuture<HttpResponse<InputStream>> attempt =
        http.openStream(path(), clientId, headers(), settings.connectTimeout());
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

  /** Reads frames until the stream ends; true when the session ended. */
  private boolean pump(InputStream body) throws IOException {
    boolean[] terminal = {false};
    boolean[] tooLarge = {false};
    SseDecoder decoder =
        new SseDecoder(
            settings.maxEventBytes(),
            new SseDecoder.Listener() {
              @Override
              public void event(SseEvent event) {
                // Nothing after a dropped event is delivered: the session would miss one.
                if (!terminal[0] && !tooLarge[0]) {
                  terminal[0] = handle(event.name(), event.data());
                }
              }

              @Override
              public void tooLarge() {
                tooLarge[0] = true;
              }

              @Override
              public void retry(long millis) {
                retryMillis = Math.max(MIN_RETRY_MS, Math.min(MAX_RETRY_MS, millis));
              }
            });
    byte[] buffer = new byte[8192];
    int n;
    while ((n = body.read(buffer)) >= 0) {
      lastBytesNanos = clock.nanoTime();
      decoder.feed(buffer, 0, n);
      if (tooLarge[0]) {
        throw new EventTooLargeException(settings.maxEventBytes());
      }
    }
    decoder.finish();
    return terminal[0];
  }

  /** An event longer than the cap: the stream ends, since the session would miss it. */
  private static final class EventTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    EventTooLargeException(int maxEventBytes) {
      super("event stream event longer than " + maxEventBytes + " bytes");
    }
  }

  private boolean handle(String sseEvent, String data) {
    DaemonEvent event = EventDecoder.decode(sseEvent, data, sessionId, http.redactor());
    long id = event.meta().id();
    if (id > 0) {
      if (id <= lastEventId) {
        LOG.debug("dropping replayed event {} of session {}", id, sessionId);
        return false;
      }
      lastEventId = id;
    }
    if (event instanceof ResyncRequired) {
      // What follows is the daemon's replay from its earliest retained id (or a new epoch's ids).
      lastEventId = 0;
    }
    if (event instanceof Unknown unknown && "client_evicted".equals(unknown.type())) {
      evictionReason = evictionReason(data);
    }
    delivered++;
    deliver(event);
    if (event instanceof SessionDied died) {
      status(State.LOST, 0, Duration.ZERO, "session died: " + died.reason());
      return true;
    }
    if (event instanceof SessionClosed closedEvent) {
      status(State.LOST, 0, Duration.ZERO, "session closed: " + closedEvent.reason());
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

  private void giveUp(String reason, String detail) {
    LOG.warn("giving up on the event stream of session {}: {} ({})", sessionId, reason, detail);
    deliver(
        new SessionDied(
            new EventMeta(0, sessionId, null, null, System.currentTimeMillis()),
            reason,
            null,
            null,
            false));
    status(State.LOST, 0, Duration.ZERO, detail);
  }

  private void deliver(DaemonEvent event) {
    try {
      listener.onEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("daemon listener failed on {}", event.getClass().getSimpleName(), e);
    } finally {
      turns.onEvent(event);
    }
  }

  private void status(State state, int attempt, Duration retryIn, String detail) {
    try {
      listener.onConnectionChanged(
          new ConnectionStatus(state, attempt, retryIn, Math.max(0, lastEventId), detail));
    } catch (RuntimeException e) {
      LOG.warn("daemon listener failed on a connection change", e);
    }
  }

  private String path() {
    String path = "/session/" + DaemonHttp.segment(sessionId) + "/events";
    return settings.maxQueued() == null ? path : path + "?maxQueued=" + settings.maxQueued();
  }

  private Map<String, String> headers() {
    Map<String, String> headers = new LinkedHashMap<>();
    long cursor = lastEventId >= 0 ? lastEventId : fallbackCursor;
    if (cursor >= 0) {
      headers.put("Last-Event-ID", Long.toString(cursor));
      if (epoch != null) {
        headers.put("X-Qwen-Event-Epoch", epoch);
      }
    }
    return headers;
  }

  private void checkHeartbeat() {
    InputStream stream = current;
    long silentMillis = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - lastBytesNanos);
    if (stream != null && silentMillis > settings.heartbeatTimeout().toMillis()) {
      LOG.info(
          "event stream of session {} silent for {} ms; reconnecting", sessionId, silentMillis);
      closeCurrent();
    }
  }

  private void closeCurrent() {
    InputStream stream = current;
    current = null;
    if (stream != null) {
      try {
        stream.close();
      } catch (IOException e) {
        LOG.debug("closing the event stream failed", e);
      }
    }
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
