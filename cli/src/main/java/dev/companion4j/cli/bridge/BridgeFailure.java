package dev.companion4j.cli.bridge;

/** Why the bridge cannot go on, in one line for the user, and the exit code that says so. */
final class BridgeFailure extends Exception {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  BridgeFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
