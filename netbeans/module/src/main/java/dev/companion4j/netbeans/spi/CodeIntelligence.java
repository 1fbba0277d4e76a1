package dev.companion4j.netbeans.spi;

import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.HostActionException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a language's support in NetBeans answers about code, registered in the default Lookup
 * ({@code @ServiceProvider}). The companion declares the code features only when one is present, so
 * that it still runs in a NetBeans without that language. Called on the companion's code thread,
 * never on the EDT, one call at a time; each call may block on the IDE's parser and index.
 */
public interface CodeIntelligence {

  /**
   * Answers {@code query} as {@link dev.companion4j.engine.CompanionHost#findCode} does: columns
   * 1-based in code points, each place with its line's text.
   *
   * @throws HostActionException when it cannot (a file of another language, a position on no
   *     symbol, the index not ready); never an empty list for that
   */
  List<CodeResult> find(CodeQuery query) throws HostActionException;

  /**
   * The whole new text of every file the IDE's own rename refactoring changes, none written.
   *
   * @throws HostActionException when the IDE refuses the rename, or would change more than texts
   */
  Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException;

  /**
   * Takes in the files an accepted change has just written (e.g. updates the index other files'
   * answers and errors are resolved against), so that what the IDE says next sees them. Returns
   * within a few seconds, done or not.
   */
  void written(Set<Path> files);
}
