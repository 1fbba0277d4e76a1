package dev.companion4j.engine;

/** Thrown by a host that cannot do what was asked of it; the message reaches the asker. */
public final class HostActionException extends Exception {
  private static final long serialVersionUID = 1L;

  public HostActionException(String message) {
    super(message);
  }
}
