package dev.companion4j.engine.internal.session;

import dev.companion4j.engine.ClientProcess;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.internal.loop.EngineScheduler;
import dev.companion4j.engine.internal.sse.FrameQueue;
import dev.companion4j.engine.internal.sse.Liveness;
import dev.companion4j.engine.internal.sse.SseChannel;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one owner of the CLI sessions: it learns of each in the SDK's session factory, before the
 * {@code initialize} answer leaves, and enforces the cap in the same step; it owns each session's
 * notification stream and its bounded outbound queue; and it closes a session the moment its stream
 * ends, stalls (the {@link Liveness} sweep sees to that), overflows or its ping goes unanswered, or
 * once it has been idle too long.
 *
 * <p>Thread-safe. Sending never blocks: frames wait in the session's queue and go out as its CLI
 * reads, so a CLI that stops reading delays nobody else. {@link Events} are called without locks
 * held, on the thread that caused them.
 */
public final class SessionRegistry {
  private static final Logger log = LoggerFactory.getLogger(SessionRegistry.class);
  private static final TypeRef<Object> ANY = new TypeRef<>() {};
  private static final JsonMapper JSON = JsonMapper.shared();

  /** What the engine learns of sessions. */
  public interface Events {
    void connected(ConnectedClient client);

    /** The session's notification stream opened; the CLI expects the current context now. */
    void streamOpened(String sessionId);

    void disconnected(ConnectedClient client, Departure why);
  }

  /** Why a session ended. */
  public enum Departure {
    GOODBYE("it ended its session"),
    STREAM_ENDED("its connection closed"),
    STALLED("it stopped reading its notification stream"),
    OVERFLOW("too many notifications waited for it"),
    PING_FAILED("it did not answer a ping"),
    IDLE("it was idle without a notification stream"),
    STOPPED("the companion stopped");

    private final String reason;

    Departure(String reason) {
      this.reason = reason;
    }

    @Override
    public String toString() {
      return reason;
    }
  }

  /**
   * @param maxSessions the most sessions at once
   * @param idleTimeout how long a session without a stream and without requests lives
   * @param pingInterval how often a session with a stream is pinged
   * @param pingTimeout how long a ping may go unanswered
   * @param queue the bounds of each session's outbound queue, also while it has no stream
   */
  public record Settings(
      int maxSessions,
      Duration idleTimeout,
      Duration pingInterval,
      Duration pingTimeout,
      SseChannel.Limits queue) {}

  private final Settings settings;
  private final Clock clock;
  private final EngineScheduler scheduler;
  private final Liveness liveness;
  private final Events events;
  private final ThreadLocal<Boolean> refusedHere = new ThreadLocal<>();
  private final ThreadLocal<ClientProcess> peerHere = new ThreadLocal<>();

  // Guarded by this.
  private final Map<String, Session> sessions = new LinkedHashMap<>();
  private boolean stopped;

  private static final class Session {
    final ConnectedClient client;
    final McpStreamableServerSession sdk;
    SseChannel stream;

    /** Frames sent before the stream opened, under the same limits as the stream's own queue. */
    final FrameQueue held;

    long lastActiveNanos;
    long nextPingNanos;
    boolean pinging;

    Session(
        ConnectedClient client,
        McpStreamableServerSession sdk,
        long now,
        SseChannel.Limits limits) {
      this.client = client;
      this.sdk = sdk;
      this.held = new FrameQueue(limits);
      this.lastActiveNanos = now;
    }
  }

  public SessionRegistry(
      Settings settings, Clock clock, EngineScheduler scheduler, Liveness liveness, Events events) {
    this.settings = settings;
    this.clock = clock;
    this.scheduler = scheduler;
    this.liveness = liveness;
    this.events = events;
  }

  /**
   * Registers a session the SDK is creating, on the thread answering its {@code initialize}, and
   * binds the session's notifications to the registry's own stream handling.
   *
   * @return false when the cap is reached; {@link #refusedForCapacity()} then says so on this
   *     thread
   */
  boolean register(McpStreamableServerSession sdk, String clientName, String clientVersion) {
    ClientProcess process = peerHere.get();
    ConnectedClient client =
        new ConnectedClient(
            sdk.getId(),
            clientName,
            clientVersion,
            clock.instant(),
            process == null ? ClientProcess.UNKNOWN : process);
    synchronized (this) {
      if (stopped || sessions.size() >= settings.maxSessions()) {
        refusedHere.set(Boolean.TRUE);
        return false;
      }
      Session s = new Session(client, sdk, scheduler.nanoTime(), settings.queue());
      s.nextPingNanos = s.lastActiveNanos + settings.pingInterval().toNanos();
      sessions.put(client.id(), s);
    }
    sdk.listeningStream(new SessionTransport(client.id(), this));
    events.connected(client);
    return true;
  }

  /**
   * Names the process behind the {@code initialize} this thread is about to hand to the SDK, for
   * the session it creates; {@code null} clears it once the request is answered.
   */
  public void initializingFrom(ClientProcess process) {
    if (process == null) {
      peerHere.remove();
    } else {
      peerHere.set(process);
    }
  }

  /** Whether the handshake handled on this thread was refused for the cap; clears the mark. */
  public boolean refusedForCapacity() {
    boolean refused = Boolean.TRUE.equals(refusedHere.get());
    refusedHere.remove();
    return refused;
  }

  public synchronized boolean isFull() {
    return sessions.size() >= settings.maxSessions();
  }

  /** Whether {@code sessionId} is a live session; records activity when it is. */
  public synchronized boolean touch(String sessionId) {
    Session s = sessions.get(sessionId);
    if (s != null) {
      s.lastActiveNanos = scheduler.nanoTime();
    }
    return s != null;
  }

  /**
   * Answers a session's {@code GET}: opens its notification stream and sends what waited for it. A
   * second stream replaces the first.
   *
   * @return false when the session is unknown; nothing was written
   */
  public boolean openStream(
      String sessionId, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    synchronized (this) {
      if (!sessions.containsKey(sessionId)) {
        return false;
      }
    }
    SseChannel channel =
        liveness.open(
            request, response, settings.queue(), (c, end) -> streamEnded(sessionId, c, end));
    SseChannel replaced;
    synchronized (this) {
      Session s = sessions.get(sessionId);
      if (s == null) {
        replaced = channel;
      } else {
        replaced = s.stream;
        s.stream = channel;
        s.lastActiveNanos = scheduler.nanoTime();
        channel.sendAll(s.held);
      }
    }
    // The stream this one replaced, or this one when the session was closed meanwhile.
    if (replaced != null) {
      replaced.close(SseChannel.End.CLOSED);
    }
    if (!channel.isOpen()) {
      return true;
    }
    // Once per session is normal; more means the client keeps reconnecting.
    log.info("Notification stream opened for session {}", sessionId);
    events.streamOpened(sessionId);
    return true;
  }

  /**
   * Queues a JSON-RPC notification for one session.
   *
   * @param key replaces a queued notification with the same key (newest context wins); null to
   *     append
   * @param params serialized as JSON
   * @return false when the session is gone or this closed it for overflow
   */
  public boolean notify(String sessionId, String key, String method, Object params) {
    return send(sessionId, key, notificationFrame(method, params));
  }

  /** Queues one notification for every session; serialized once. */
  public void notifyAll(String key, String method, Object params) {
    byte[] frame = notificationFrame(method, params);
    for (String id : ids()) {
      send(id, key, frame);
    }
  }

  /** Queues an SSE frame for one session; never blocks. */
  boolean send(String sessionId, String key, byte[] frame) {
    SseChannel channel;
    boolean overflow = false;
    synchronized (this) {
      Session s = sessions.get(sessionId);
      if (s == null) {
        return false;
      }
      channel = s.stream;
      if (channel == null) {
        overflow = !s.held.add(key, frame);
      }
    }
    if (channel != null) {
      return channel.send(key, frame);
    }
    if (overflow) {
      close(sessionId, Departure.OVERFLOW);
      return false;
    }
    return true;
  }

  /** Ends a session: its stream closes, the SDK forgets it, the engine hears why. Idempotent. */
  public void close(String sessionId, Departure why) {
    Session s;
    SseChannel stream;
    synchronized (this) {
      s = sessions.remove(sessionId);
      if (s == null) {
        return;
      }
      stream = s.stream;
    }
    if (stream != null) {
      boolean orderly =
          why == Departure.GOODBYE || why == Departure.STOPPED || why == Departure.IDLE;
      stream.close(orderly ? SseChannel.End.CLOSED : SseChannel.End.CLIENT_GONE);
    }
    try {
      s.sdk.close();
    } catch (RuntimeException e) {
      log.debug("Closing the MCP session {} failed: {}", sessionId, e.toString());
    }
    if (why == Departure.GOODBYE || why == Departure.STOPPED) {
      log.info("CLI {} left: {}", s.client.name(), why);
    } else {
      log.warn("Closed the session of CLI {}: {}", s.client.name(), why);
    }
    events.disconnected(s.client, why);
  }

  /**
   * The sessions' part of the liveness sweep, after the streams' own ({@link Liveness#sweep}):
   * closes sessions idle too long without a stream and pings those with a stream that are due.
   */
  public void sweep() {
    long now = scheduler.nanoTime();
    List<String> idle = new ArrayList<>();
    List<Session> toPing = new ArrayList<>();
    synchronized (this) {
      for (Session s : sessions.values()) {
        if (s.stream != null) {
          if (!s.pinging && now - s.nextPingNanos >= 0) {
            s.pinging = true;
            toPing.add(s);
          }
        } else if (now - s.lastActiveNanos > settings.idleTimeout().toNanos()) {
          idle.add(s.client.id());
        }
      }
    }
    idle.forEach(id -> close(id, Departure.IDLE));
    toPing.forEach(this::ping);
  }

  private void ping(Session s) {
    String id = s.client.id();
    s.sdk
        .sendRequest("ping", null, ANY)
        .timeout(settings.pingTimeout())
        .subscribe(
            answer -> pinged(s),
            failure -> {
              log.debug("Ping to session {} failed: {}", id, failure.toString());
              close(id, Departure.PING_FAILED);
            },
            () -> pinged(s));
  }

  private synchronized void pinged(Session s) {
    if (s.pinging) {
      s.pinging = false;
      s.nextPingNanos = scheduler.nanoTime() + settings.pingInterval().toNanos();
    }
  }

  /** Closes every session in order, e.g. on shutdown; no session registers afterwards. */
  public void closeAll() {
    List<String> all;
    synchronized (this) {
      stopped = true;
      all = new ArrayList<>(sessions.keySet());
    }
    all.forEach(id -> close(id, Departure.STOPPED));
  }

  public synchronized List<ConnectedClient> clients() {
    return sessions.values().stream().map(s -> s.client).toList();
  }

  public synchronized boolean isLive(String sessionId) {
    return sessions.containsKey(sessionId);
  }

  /** The frames waiting for a session's stream to open, as text. */
  synchronized List<String> held(String sessionId) {
    Session s = sessions.get(sessionId);
    return s == null ? List.of() : s.held.toText();
  }

  private synchronized List<String> ids() {
    return List.copyOf(sessions.keySet());
  }

  private void streamEnded(String sessionId, SseChannel channel, SseChannel.End end) {
    synchronized (this) {
      Session s = sessions.get(sessionId);
      if (s == null || s.stream != channel) {
        return;
      }
    }
    close(
        sessionId,
        switch (end) {
          case STALLED -> Departure.STALLED;
          case OVERFLOW -> Departure.OVERFLOW;
          case CLOSED, CLIENT_GONE -> Departure.STREAM_ENDED;
        });
  }

  private static byte[] notificationFrame(String method, Object params) {
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("jsonrpc", "2.0");
    message.put("method", method);
    message.put("params", params);
    return messageFrame(message);
  }

  /** The SSE frame that carries one JSON-RPC message, as the SDK frames them. */
  static byte[] messageFrame(Object message) {
    return SseChannel.frame("message", JSON.writeValueAsString(message));
  }
}
