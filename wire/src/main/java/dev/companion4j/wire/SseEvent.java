package dev.companion4j.wire;

/**
 * One dispatched server-sent event.
 *
 * @param id the event's {@code id:}, or {@code null} when it had none (no id carries over from an
 *     earlier event: no consumer resumes a stream by it)
 * @param name the event's {@code event:}, {@link #MESSAGE} when it had none
 * @param data its {@code data:} lines, joined by line feeds
 */
public record SseEvent(String id, String name, String data) {
  /** The name of an event that names none. */
  public static final String MESSAGE = "message";

  public boolean isMessage() {
    return name.equals(MESSAGE);
  }
}
