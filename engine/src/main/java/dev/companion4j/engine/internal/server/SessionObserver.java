package dev.companion4j.engine.internal.server;

/** What the transport tells the engine about MCP sessions, which the SDK does not expose. */
public interface SessionObserver {

  /** Whether another session may be created. */
  boolean acceptsNewSession();

  /** A client finished its handshake and got {@code sessionId}. */
  void initialized(String sessionId, String clientName, String clientVersion);

  /** A session's notification stream (its GET request) opened. */
  void streamOpened(String sessionId);

  /** A session's notification stream ended. */
  void streamClosed(String sessionId);

  /** Any request of a session arrived. */
  void active(String sessionId);

  /** The client ended its session with DELETE. */
  void deleted(String sessionId);
}
