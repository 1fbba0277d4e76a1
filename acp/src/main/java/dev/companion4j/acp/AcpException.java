package dev.companion4j.acp;

/** The agent could not be started, refused a call, or is gone; the message says what to do. */
public final class AcpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AcpException(String message) {
    super(message);
  }

  public AcpException(String message, Throwable cause) {
    super(message, cause);
  }
}
