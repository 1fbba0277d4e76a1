package dev.companion4j.engine.internal.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Whether a path lies inside the workspace roots, as the CLIs and the user see them. */
public final class WorkspacePaths {
  private WorkspacePaths() {}

  /** Whether normalized {@code path} lies inside one of {@code roots}, literally or behind a root's symlink. */
  public static boolean inside(Path path, List<Path> roots) {
    return roots.stream().anyMatch(root -> inside(path, root));
  }

  /** The roots with symlinks resolved; a root that cannot be resolved stays as it is. */
  public static List<Path> real(List<Path> roots) {
    return roots.stream().map(WorkspacePaths::real).toList();
  }

  private static boolean inside(Path path, Path root) {
    Path r = root.toAbsolutePath().normalize();
    if (path.startsWith(r)) {
      return true;
    }
    // The CLI resolves symlinks; a root behind a symlink must still match.
    try {
      return path.startsWith(r.toRealPath());
    } catch (IOException e) {
      return false;
    }
  }

  private static Path real(Path root) {
    Path r = root.toAbsolutePath().normalize();
    try {
      return r.toRealPath();
    } catch (IOException e) {
      return r;
    }
  }
}
