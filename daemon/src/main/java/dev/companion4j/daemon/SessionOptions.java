package dev.companion4j.daemon;

/**
 * How to create or attach to a session.
 *
 * @param workspaceCwd an absolute path on the daemon's host that the daemon has registered, or
 *     {@code null} for the daemon's primary workspace
 * @param newThread {@code true} always creates a new session; {@code false} attaches to the
 *     workspace's shared session when there is one (the daemon's {@code single} scope)
 * @param approvalMode the approval mode for a new session, or {@code null} for the daemon's default
 * @param modelServiceId the model to start with, or {@code null} for the daemon's default
 */
public record SessionOptions(
    String workspaceCwd, boolean newThread, ApprovalMode approvalMode, String modelServiceId) {

  public SessionOptions {
    if (workspaceCwd != null && workspaceCwd.isBlank()) {
      throw new IllegalArgumentException("workspace path must not be blank");
    }
    if (modelServiceId != null && modelServiceId.isBlank()) {
      throw new IllegalArgumentException("model id must not be blank");
    }
  }

  /** Attach to (or create) the shared session of the daemon's primary workspace. */
  public static SessionOptions defaults() {
    return new SessionOptions(null, false, null, null);
  }

  /** Attach to (or create) the shared session of a workspace on the daemon's host. */
  public static SessionOptions forWorkspace(String workspaceCwd) {
    return new SessionOptions(workspaceCwd, false, null, null);
  }

  /** A copy that always creates a new session. */
  public SessionOptions asNewThread() {
    return new SessionOptions(workspaceCwd, true, approvalMode, modelServiceId);
  }

  /** A copy with an approval mode. */
  public SessionOptions withApprovalMode(ApprovalMode mode) {
    return new SessionOptions(workspaceCwd, newThread, mode, modelServiceId);
  }

  /** A copy that starts with a model. */
  public SessionOptions withModel(String modelId) {
    return new SessionOptions(workspaceCwd, newThread, approvalMode, modelId);
  }
}
