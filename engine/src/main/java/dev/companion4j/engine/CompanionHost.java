package dev.companion4j.engine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
   * Answers a question about code from what the editor knows of it, the user's unsaved text
   * included. Called only for a query whose {@link CodeQuery#feature()} is in {@link #features()}.
   * Unlike the other methods, it is called on the companion's code thread ({@code
   * companion4j-code}), one query at a time, never on the engine thread: the editor may take its
   * time (an index, a language server), and the asker waits for it at most {@link
   * #CODE_ANSWER_BOUND}.
   *
   * @return every result, in the editor's order; the companion bounds what it passes on
   * @throws HostActionException when the editor cannot answer this query (a language it has no
   *     knowledge of, a position on no symbol); its message reaches the asker, so an empty list
   *     always means "none"
   */
  default List<CodeResult> findCode(CodeQuery query) throws HostActionException {
    throw new HostActionException(
        ideInfo().displayName() + " does not answer questions about code");
  }

  /**
   * Computes with the editor's refactoring the whole new text of every file a rename changes, and
   * writes none of them: the user reviews them as one change first. Called on the code thread, as
   * {@link #findCode} is, only when {@link #features()} has {@link HostFeature#RENAME}.
   *
   * @return each changed file's new text by absolute path, in the order to show; never empty
   * @throws HostActionException when the editor refuses the rename (an invalid name, a symbol it
   *     cannot rename); its message reaches the asker
   */
  default Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException {
    throw new HostActionException(ideInfo().displayName() + " cannot rename symbols");
  }

  /**
   * Writes the files of a change the user accepted: a rename {@link #renameEdits} computed, with
   * the user's edits from the review. Called on the code thread. By default each file is written to
   * disk; an editor that holds files in buffers writes through them, so that unsaved text and undo
   * stay its own.
   *
   * @param contents each file's whole text, by absolute path
   * @throws HostActionException when a file could not be written; the message names it
   */
  default void writeChange(Map<Path, String> contents) throws HostActionException {
    ChangeFiles.write(contents);
  }

  /** The longest a query or a rename's edits may take the host before the asker hears it failed. */
  Duration CODE_ANSWER_BOUND = Duration.ofSeconds(30);

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
