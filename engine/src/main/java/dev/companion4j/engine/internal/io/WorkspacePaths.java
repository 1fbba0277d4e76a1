package dev.companion4j.engine.internal.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether a path lies inside the workspace roots, both as written (as the CLIs and the user see it)
 * and where the kernel takes it, every link on the way resolved. The one check behind {@code
 * openDiff} and {@code /ide/open}.
 */
public final class WorkspacePaths {
  private WorkspacePaths() {}

  /** Why a path is refused; each caller says it in its own words. */
  public enum Refusal {
    /** Outside every root as written. */
    OUTSIDE,
    /** Inside as written, but a link on the way leads out. */
    LEADS_OUTSIDE,
    /**
     * A link on the way points at nothing: a write through it would create its target, anywhere.
     */
    DANGLING_LINK,
    /** A {@code ..} after a link: the kernel and the text name two different files. */
    AMBIGUOUS_DOT_DOT,
    /** A part is not a folder or may not be read, so where it leads cannot be told. */
    UNRESOLVABLE
  }

  /** A path refused by {@link #resolve}. */
  public static final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final Refusal why;

    RefusedException(Refusal why) {
      super(why.name(), null, false, false);
      this.why = why;
    }

    public Refusal why() {
      return why;
    }
  }

  /**
   * Where a path inside the roots leads.
   *
   * @param normal the path as written, without {@code .} and {@code ..}: what the user is shown
   * @param real where the kernel takes it, no link left; for a file not there yet, its nearest
   *     existing folder's real path with the rest appended
   * @param exists whether anything is at {@code real}
   */
  public record Place(Path normal, Path real, boolean exists) {}

  /**
   * Resolves {@code absolute} and checks it against {@code roots}, as written and as the kernel
   * resolves it; a path whose {@code ..} makes those two differ is refused, since the file shown
   * would not be the one written.
   */
  public static Place resolve(Path absolute, List<Path> roots) throws RefusedException {
    Path normal = absolute.normalize();
    if (!inside(normal, roots)) {
      throw new RefusedException(Refusal.OUTSIDE);
    }
    Place place = follow(absolute);
    if (real(roots).stream().noneMatch(place.real()::startsWith)) {
      throw new RefusedException(Refusal.LEADS_OUTSIDE);
    }
    if (!normal.equals(absolute) && !follow(normal).real().equals(place.real())) {
      throw new RefusedException(Refusal.AMBIGUOUS_DOT_DOT);
    }
    return new Place(normal, place.real(), place.exists());
  }

  /**
   * Whether normalized {@code path} lies inside one of {@code roots}, literally or behind a root's
   * symlink.
   */
  public static boolean inside(Path path, List<Path> roots) {
    return roots.stream().anyMatch(root -> inside(path, root));
  }

  /** The roots with symlinks resolved; a root that cannot be resolved stays as it is. */
  private static List<Path> real(List<Path> roots) {
    return roots.stream().map(WorkspacePaths::real).toList();
  }

  /**
   * Where the kernel takes {@code path}: {@code realpath(3)} of it, or of its nearest existing
   * ancestor with the rest appended (parts that do not exist cannot be links).
   */
  private static Place follow(Path path) throws RefusedException {
    Path rest = null;
    for (Path at = path; at != null; at = at.getParent()) {
      try {
        Path real = at.toRealPath();
        return new Place(path, rest == null ? real : real.resolve(rest).normalize(), rest == null);
      } catch (NoSuchFileException e) {
        if (Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
          throw new RefusedException(Refusal.DANGLING_LINK);
        }
        rest = rest == null ? at.getFileName() : at.getFileName().resolve(rest);
      } catch (IOException e) {
        throw new RefusedException(Refusal.UNRESOLVABLE);
      }
    }
    throw new RefusedException(Refusal.UNRESOLVABLE);
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
