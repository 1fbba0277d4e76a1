package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.ConnectedClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The CLI sessions the engine knows of. The SDK keeps sessions but tells nobody when they come
 * and go, and only removes one on the client's DELETE; this keeps the engine's view, holds
 * notifications that found no open stream until the client reconnects, and names the sessions
 * that went quiet for the reaper.
 */
public final class ClientSessions implements SessionObserver {

  /** What the engine does when sessions change. */
  public interface Events {
    void connected(ConnectedClient client);

    /** The listening stream opened; {@code held} are notifications kept while it was closed. */
    void streamOpened(String sessionId, List<Notification> held);

    void disconnected(ConnectedClient client);
  }

  /** A notification kept for a session without an open stream. */
  public record Notification(String method, Map<String, Object> params) {}

  private static final int MAX_HELD = 32;

  private final int maxSessions;
  private final Clock clock;
  private final Events events;
  private final Map<String, State> sessions = new LinkedHashMap<>();

  private static final class State {
    final ConnectedClient client;
    int openStreams;
    Instant lastActive;
    final List<Notification> held = new ArrayList<>();

    State(ConnectedClient client) {
      this.client = client;
      this.lastActive = client.connectedAt();
    }
  }

  public ClientSessions(int maxSessions, Clock clock, Events events) {
    this.maxSessions = maxSessions;
    this.clock = clock;
    this.events = events;
  }

  @Override
  public synchronized boolean acceptsNewSession() {
    return sessions.size() < maxSessions;
  }

  @Override
  public void initialized(String sessionId, String clientName, String clientVersion) {
    ConnectedClient client = new ConnectedClient(sessionId, clientName, clientVersion, clock.instant());
    synchronized (this) {
      sessions.put(sessionId, new State(client));
    }
    events.connected(client);
  }

  @Override
  public void streamOpened(String sessionId) {
    List<Notification> held;
    synchronized (this) {
      State s = sessions.get(sessionId);
      if (s == null) {
        return;
      }
      s.openStreams++;
      s.lastActive = clock.instant();
      held = List.copyOf(s.held);
      s.held.clear();
    }
    events.streamOpened(sessionId, held);
  }

  @Override
  public synchronized void streamClosed(String sessionId) {
    State s = sessions.get(sessionId);
    if (s != null) {
      s.openStreams = Math.max(0, s.openStreams - 1);
      s.lastActive = clock.instant();
    }
  }

  @Override
  public synchronized void active(String sessionId) {
    State s = sessions.get(sessionId);
    if (s != null) {
      s.lastActive = clock.instant();
    }
  }

  @Override
  public void deleted(String sessionId) {
    State s;
    synchronized (this) {
      s = sessions.remove(sessionId);
    }
    if (s != null) {
      events.disconnected(s.client);
    }
  }

  /** Keeps a notification that could not be written until the session's stream reopens. */
  public synchronized void hold(String sessionId, Notification notification) {
    State s = sessions.get(sessionId);
    if (s != null && s.held.size() < MAX_HELD) {
      s.held.add(notification);
    }
  }

  /** Sessions with an open listening stream. */
  public synchronized List<String> listening() {
    return sessions.entrySet().stream().filter(e -> e.getValue().openStreams > 0).map(Map.Entry::getKey).toList();
  }

  public synchronized List<ConnectedClient> clients() {
    return sessions.values().stream().map(s -> s.client).toList();
  }

  /** Sessions without an open stream and without a request for longer than {@code idle}. */
  public synchronized List<String> idleLongerThan(Duration idle) {
    Instant cutoff = clock.instant().minus(idle);
    return sessions.entrySet().stream()
        .filter(e -> e.getValue().openStreams == 0 && e.getValue().lastActive.isBefore(cutoff))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Forgets every session, e.g. on shutdown, telling the engine about each. */
  public void clear(Consumer<ConnectedClient> gone) {
    List<State> all;
    synchronized (this) {
      all = new ArrayList<>(sessions.values());
      sessions.clear();
    }
    all.forEach(s -> gone.accept(s.client));
  }
}
