package dev.companion4j.cli.attach;

import java.util.Optional;

/** Why a request got no result: one of the codes docs/attach.md lists, and words for a human. */
final class RequestFailure extends Exception {
  private static final long serialVersionUID = 1L;

  private final String code;
  private final String outcome;

  RequestFailure(String code, String message) {
    this(code, message, null);
  }

  /** An {@code ended} failure names how the diff ended. */
  RequestFailure(String code, String message, String outcome) {
    super(message, null, false, false);
    this.code = code;
    this.outcome = outcome;
  }

  String code() {
    return code;
  }

  Optional<String> outcome() {
    return Optional.ofNullable(outcome);
  }
}
