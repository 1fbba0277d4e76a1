package dev.companion4j.daemon;

/**
 * An answer to a permission request: one of the offered options, or cancel.
 *
 * @param optionId the chosen {@link DaemonEvent.PermissionOption#optionId()}, or {@code null} to
 *     cancel
 */
public record PermissionDecision(String optionId) {

  public PermissionDecision {
    if (optionId != null && optionId.isBlank()) {
      throw new IllegalArgumentException("option id must not be blank");
    }
  }

  /** Choose an option the daemon offered. */
  public static PermissionDecision select(DaemonEvent.PermissionOption option) {
    return new PermissionDecision(option.optionId());
  }

  /** Choose an option by id. */
  public static PermissionDecision select(String optionId) {
    if (optionId == null) {
      throw new IllegalArgumentException("option id is required; use cancel() to cancel");
    }
    return new PermissionDecision(optionId);
  }

  /** Cancel the request, which denies the tool call. */
  public static PermissionDecision cancel() {
    return new PermissionDecision(null);
  }
}
