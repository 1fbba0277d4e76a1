package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What an editor implements to host the companion: the one extension point of the engine.
 *
 * <p>The engine calls these methods from its own threads, so an implementation hops to its UI
 * thread itself where it must. One exception: {@link Companion#stop()} closes the open diffs on
 * the thread that calls it, which may be the UI thread when the editor shuts down; a host must not
 * wait for its UI thread from there. {@link #showDiff} and {@link #closeDiff} should return
 * promptly: the CLI waits for the acknowledgement.
 */
public interface CompanionHost {

  /** The editor's name as the CLIs show it. */
  IdeInfo ideInfo();

  /**
   * The open workspace roots, absolute. A CLI only connects when its working directory lies
   * inside one of them; an empty list makes the CLIs ask the user to open a workspace folder.
   */
  List<Path> workspaceRoots();

  /** Whether the user trusts the workspace; feeds the CLI's folder-trust decision. */
  default boolean isTrusted() {
    return true;
  }

  /**
   * Shows a proposed edit for review. The user later accepts or rejects it, which the host
   * reports through {@link Companion#acceptDiff} or {@link Companion#rejectDiff}.
   *
   * @throws DiffViewException when the diff cannot be shown; its message reaches the CLI
   */
  void showDiff(PendingDiff diff) throws DiffViewException;

  /**
   * Closes the review of {@code diff} without an outcome (the CLI closed it, replaced it, or went
   * away).
   *
   * @return the proposed side's current text, which the user may have edited, or empty when the
   *     host does not keep it
   */
  Optional<String> closeDiff(PendingDiff diff);
}
