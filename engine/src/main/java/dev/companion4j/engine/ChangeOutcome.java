package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How a pending change of several files ended: once, for all of its files together. */
public sealed interface ChangeOutcome {

  /**
   * The user accepted every file; the proposer writes them all.
   *
   * @param contents each file's whole text to write, the user's edits included, in the change's
   *     order
   */
  record Accepted(Map<Path, String> contents) implements ChangeOutcome {
    public Accepted {
      contents = Collections.unmodifiableMap(new LinkedHashMap<>(contents));
    }

    /** Names the files, never their text. */
    @Override
    public String toString() {
      return "Accepted" + contents.keySet();
    }
  }

  /** The user rejected the change: no file is written. */
  record Rejected() implements ChangeOutcome {}

  /**
   * The user accepted, but these files changed on disk since the change was proposed, so it would
   * overwrite work it never saw: no file is written.
   */
  record ChangedOnDisk(List<Path> paths) implements ChangeOutcome {
    public ChangedOnDisk {
      paths = List.copyOf(paths);
    }
  }

  /** The companion stopped before the user answered: no file is written. */
  record Stopped() implements ChangeOutcome {}
}
