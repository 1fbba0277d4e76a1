package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.Map;

/**
 * The answer side of one pending change, handed to the host with it. Thread-safe; only the first
 * answer counts, and it decides for every file of the change.
 */
public interface ChangeReview {

  DiffId changeId();

  /**
   * The user accepted every file.
   *
   * @param edited the whole text of each file the user edited in the review, by the path the change
   *     names; files left out are written as proposed
   * @throws IllegalArgumentException when {@code edited} names a file the change does not hold; the
   *     change stays pending
   */
  ChangeAnswer accept(Map<Path, String> edited);

  /** The user rejected the change: no file is written. */
  ChangeAnswer reject();
}
