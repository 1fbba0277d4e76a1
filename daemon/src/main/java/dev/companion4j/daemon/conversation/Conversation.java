package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.DaemonEvent.FileDiff;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.Question;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a chat view shows of one daemon session, at one moment: immutable, so a view renders it on
 * its own thread. Each change to the session yields a new one (see {@link Conversations#apply}).
 *
 * @param state whether the session can be talked to
 * @param stateReason why the state is what it is (e.g. the daemon's reason a session died), or
 *     empty
 * @param modelId the session's model, or empty while unknown
 * @param approvalMode what the agent may do without asking, as the daemon names it ({@code default}
 *     asks before edits and commands), or empty while unknown; views always show it
 * @param turnRunning whether the agent is working on a prompt, so a view offers to cancel
 * @param entries everything said and done, in order
 * @param plan the agent's current plan; each new plan replaces the last
 * @param permissions the requests that wait for an answer, oldest first
 * @param unsupportedTypes the event types this model has no place for, each reported once as a
 *     notice
 * @param nextEntry the number the next entry's id takes
 */
public record Conversation(
    State state,
    String stateReason,
    String modelId,
    String approvalMode,
    boolean turnRunning,
    List<Entry> entries,
    List<PlanEntry> plan,
    List<PendingPermission> permissions,
    Set<String> unsupportedTypes,
    long nextEntry) {

  public Conversation {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(stateReason, "stateReason");
    Objects.requireNonNull(modelId, "modelId");
    Objects.requireNonNull(approvalMode, "approvalMode");
    entries = List.copyOf(entries);
    plan = List.copyOf(plan);
    permissions = List.copyOf(permissions);
    unsupportedTypes = Set.copyOf(unsupportedTypes);
  }

  /** A session just attached to, with nothing said yet; {@code null} for what is not known yet. */
  public static Conversation connected(String modelId, String approvalMode) {
    return new Conversation(
        State.CONNECTED,
        "",
        modelId == null ? "" : modelId,
        approvalMode == null ? "" : approvalMode,
        false,
        List.of(),
        List.of(),
        List.of(),
        Set.of(),
        1);
  }

  /** The same conversation with other entries. */
  Conversation withEntries(List<Entry> changed) {
    return new Conversation(
        state,
        stateReason,
        modelId,
        approvalMode,
        turnRunning,
        changed,
        plan,
        permissions,
        unsupportedTypes,
        nextEntry);
  }

  /**
   * The model as the daemon offers it ({@code Capabilities#modelServices}): the daemon names the
   * model in use {@code id(auth type)} once it switched, which no offered id has.
   */
  public String modelName() {
    return modelId.replaceFirst("\\([^()]*\\)$", "");
  }

  /** Whether a session can be talked to. */
  public enum State {
    CONNECTED,
    /** The daemon was lost for a moment; the client resumes where it left off. */
    RECONNECTING,
    /**
     * The session is gone (the daemon stopped, its agent died, or it could not be reached again).
     */
    DIED,
    /** The session was closed on purpose, here or by another client. */
    CLOSED
  }

  /**
   * A permission request the agent waits on.
   *
   * @param toolCallId the tool call it is for, also an {@link Entry.ToolCall} of this conversation
   *     when the daemon announced it
   * @param diffs the file changes the call would make, for review before answering
   * @param questions what the agent asks the user, answered with the answers rather than an option
   *     alone; empty for a plain permission request
   */
  public record PendingPermission(
      String requestId,
      String toolCallId,
      String title,
      String kind,
      List<String> locations,
      List<PermissionOption> options,
      List<FileDiff> diffs,
      List<Question> questions) {
    public PendingPermission {
      locations = List.copyOf(locations);
      options = List.copyOf(options);
      diffs = List.copyOf(diffs);
      questions = List.copyOf(questions);
    }
  }
}
