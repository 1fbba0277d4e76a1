package dev.companion4j.engine;

/** Thrown by a host that cannot show a diff; the message is sent to the CLI as the tool error. */
public final class DiffViewException extends Exception {
  private static final long serialVersionUID = 1L;

  public DiffViewException(String message) {
    super(message);
  }

  public DiffViewException(String message, Throwable cause) {
    super(message, cause);
  }
}
