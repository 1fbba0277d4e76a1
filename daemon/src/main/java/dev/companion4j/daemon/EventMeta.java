package dev.companion4j.daemon;

/**
 * Envelope fields shared by every daemon event.
 *
 * @param id the daemon's monotonic per-session event id, or {@code 0} when the frame carried none
 *     (synthetic frames such as {@code stream_error} and events the client observed itself)
 * @param sessionId the session the event belongs to
 * @param promptId the prompt the event belongs to, or {@code null}
 * @param originatorClientId the client that caused the event, or {@code null}
 * @param serverTimestamp the daemon's epoch milliseconds when it published the event, or {@code 0}
 */
public record EventMeta(
    long id, String sessionId, String promptId, String originatorClientId, long serverTimestamp) {

  /** Whether the daemon numbered this event (only numbered events can be resumed from). */
  public boolean hasId() {
    return id > 0;
  }
}
