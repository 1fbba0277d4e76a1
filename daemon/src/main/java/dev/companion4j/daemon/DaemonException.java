package dev.companion4j.daemon;

/**
 * A daemon request failed: the daemon answered with an error, or could not be reached.
 *
 * <p>The message carries the route and the daemon's own error text; never the token.
 */
public class DaemonException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  public DaemonException(String message, int status, String code, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
  }

  /** The HTTP status, or {@code 0} when there was no answer. */
  public int status() {
    return status;
  }

  /** The daemon's error code (e.g. {@code session_not_found}), or {@code null}. */
  public String code() {
    return code;
  }
}
