package dev.companion4j.wire;

/** A request its receiver cannot take; the message says why, in words for whoever sent it. */
public final class BadRequest extends Exception {
  private static final long serialVersionUID = 1L;

  public BadRequest(String message) {
    super(message);
  }
}
