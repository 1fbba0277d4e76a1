package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an editor implements to host the companion: the one extension point of the engine.
 *
 * <h2>Threads</h2>
 *
 * Every method here is called on the companion's engine thread ({@code companion4j-engine}), one
 * call at a time, in the order the events happened; never on a network thread and never on the
 * thread that called into {@link Companion}. An implementation hops to its UI thread itself where
 * it must, and returns promptly: {@link #showDiff} and {@link #closeDiff} hold up the CLI that
 * waits for them, and every other host call and listener callback queues behind them. It must not
 * wait for a thread that may itself be waiting for the companion (e.g. a UI thread calling {@link
 * Companion#stop()}); wait with a bound if at all.
 */
public interface CompanionHost {

  /** The editor's name as the CLIs show it. */
  IdeInfo ideInfo();

  /**
   * The open workspace roots, absolute. A CLI only connects when its working directory lies inside
   * one of them; an empty list makes the CLIs ask the user to open a workspace folder.
   */
  List<Path> workspaceRoots();

  /** Whether the user trusts the workspace; feeds the CLI's folder-trust decision. */
  default boolean isTrusted() {
    return true;
  }

  /**
   * Shows a proposed edit for review. The user's answer goes to {@code review}, from any thread,
   * now or later; it reaches this proposal and no other.
   *
   * @throws DiffViewException when the diff cannot be shown; its message reaches the CLI
   */
  void showDiff(PendingDiff diff, DiffReview review) throws DiffViewException;

  /**
   * Ends the review of {@code diff}: called exactly once for every diff {@link #showDiff} showed,
   * whatever ended it (the user's answer, the CLI closing or replacing it, the CLI leaving, the
   * companion stopping). Close its view if it is still open. Answers sent to its {@link DiffReview}
   * from now on change nothing.
   *
   * @return the proposed side's current text, which the user may have edited, or empty when the
   *     host does not keep it; it goes to the CLI when the CLI closed the diff itself
   */
  Optional<String> closeDiff(PendingDiff diff);

  /**
   * Shows a change of several files for review as one unit: every file's diff visible, one decision
   * for all. The user's answer goes to {@code review}, from any thread, now or later. Called only
   * for a change proposed in-process ({@link Companion#proposeChange}). By default the host cannot
   * show one, and its proposer hears so.
   *
   * @throws DiffViewException when the change cannot be shown; its message reaches the proposer
   */
  default void showChange(PendingChange change, ChangeReview review) throws DiffViewException {
    throw new DiffViewException(
        ideInfo().displayName() + " cannot show a change of several files for review");
  }

  /**
   * Ends the review of {@code change}: called exactly once for every change {@link #showChange}
   * showed, whatever ended it (the user's answer, its proposer withdrawing it, the companion
   * stopping). Close its view if it is still open; answers sent to its {@link ChangeReview} from
   * now on change nothing.
   */
  default void closeChange(PendingChange change) {}

  /**
   * What this host offers beyond the IDE-mode contract; asked once, when the companion is built.
   * None by default: such a host still works, and the IDE tools say what it cannot do.
   */
  default Set<HostFeature> features() {
    return Set.of();
  }

  /**
   * Shows the user a place in a file: opens it and puts the caret there. Called only when {@link
   * #features()} has {@link HostFeature#OPEN_FILE}, for a regular file inside a workspace root.
   *
   * @param path the file, absolute
   * @param line the 1-based line, or 0 to open the file where it was
   * @param character the 1-based character on that line, or 0 for the line's start
   * @return one sentence saying what the user now sees, e.g. "Opened Main.java at line 12 in Apache
   *     NetBeans."
   * @throws HostActionException when the file cannot be shown; its message reaches the asker
   */
  default String openFile(Path path, int line, int character) throws HostActionException {
    throw new HostActionException(ideInfo().displayName() + " cannot open files on request");
  }
}
