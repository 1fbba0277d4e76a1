package dev.companion4j.engine.discovery;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import java.util.Optional;

/**
 * What may be trusted in directories other local users can write to. Every entry is examined as
 * itself (lstat, links not followed), and only what this user or root owns counts as safe.
 */
final class FileTrust {
  static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final boolean UNIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
  private static final int TYPE_MASK = 0170000;
  private static final int DIRECTORY = 0040000;
  private static final int REGULAR = 0100000;
  private static final int LINK = 0120000;
  private static final int FIFO = 0010000;
  private static final int GROUP_OR_OTHER_WRITE = 0022;
  private static final int STICKY = 01000;
  private static final FileAttribute<?>[] OWNER_DIR =
      POSIX
          ? new FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))
          }
          : new FileAttribute<?>[0];
  private static final Optional<UserPrincipal> ME = currentUser();

  private FileTrust() {}

  /**
   * A place another user controls, or could: the caller skips it, it is not the companion's fault.
   */
  static final class Refused extends IOException {
    Refused(Path path, String why) {
      super(path + " " + why);
    }
  }

  /** One lstat of an entry: what it is itself, never what a link points to. */
  private record Entry(int type, int uid, boolean mine, int mode, long size) {
    String describe() {
      return switch (type) {
        case LINK -> "a symbolic link";
        case DIRECTORY -> "a directory";
        case FIFO -> "a FIFO";
        case REGULAR -> "a regular file";
        default -> "a special file";
      };
    }
  }

  /**
   * Makes sure {@code dir} is a directory only this user (and root) can change, creating what is
   * missing as owner-only when {@code create}. Up to and including {@code sharedUpTo} directories
   * may be shared as {@code /tmp} is (root's or this user's, and sticky if others can write, so
   * nobody can replace another's entries; links there are followed only if this user or root made
   * them); below it every directory must be a real directory of this user's that nobody else can
   * write.
   *
   * @return false when a directory is missing and {@code create} is false
   * @throws Refused when another user controls, or could control, a directory on the way
   * @throws IOException when a directory cannot be made, which this user's own setup decides
   */
  static boolean secureDirectory(Path dir, Path sharedUpTo, boolean create) throws IOException {
    Path target = dir.toAbsolutePath().normalize();
    Path shared = sharedUpTo.toAbsolutePath().normalize();
    if (!target.startsWith(shared)) {
      throw new IllegalArgumentException(dir + " is not inside " + sharedUpTo);
    }
    Path p = target.getRoot();
    if (!checkDirectory(p, true, create)) {
      return false;
    }
    for (Path name : target) {
      p = p.resolve(name);
      if (!checkDirectory(p, shared.startsWith(p), create)) {
        return false;
      }
    }
    return true;
  }

  private static boolean checkDirectory(Path p, boolean shared, boolean create) throws IOException {
    Optional<Entry> found = lstat(p);
    if (found.isEmpty()) {
      if (!create) {
        return false;
      }
      try {
        Files.createDirectory(p, OWNER_DIR);
      } catch (FileAlreadyExistsException raced) {
        // Someone was first; what they made is checked below like anything found.
      }
      found = lstat(p);
      if (found.isEmpty()) {
        throw new NoSuchFileException(p.toString());
      }
    }
    Entry e = found.get();
    if (shared) {
      checkShared(p, e, create);
    } else {
      checkPrivate(p, e);
    }
    return true;
  }

  private static void checkShared(Path p, Entry e, boolean create) throws IOException {
    if (!e.mine() && e.uid() != 0) {
      throw new Refused(p, "is owned by another user (uid " + e.uid() + ")");
    }
    if (e.type() == LINK) {
      // Made by this user or root in a directory nobody else can change: follow, and check where it
      // leads.
      Path real = p.toRealPath();
      secureDirectory(real, real, create);
      return;
    }
    if (e.type() != DIRECTORY) {
      throw new NotDirectoryException(p.toString());
    }
    if ((e.mode() & GROUP_OR_OTHER_WRITE) != 0 && (e.mode() & STICKY) == 0) {
      throw new Refused(
          p, "is writable by group or others and not sticky (mode " + octal(e.mode()) + ")");
    }
  }

  private static void checkPrivate(Path p, Entry e) throws IOException {
    if (e.type() == LINK) {
      throw new Refused(p, "is a symbolic link");
    }
    if (!e.mine()) {
      throw new Refused(p, "is owned by another user (uid " + e.uid() + ")");
    }
    if (e.type() != DIRECTORY) {
      throw new NotDirectoryException(p.toString());
    }
    if ((e.mode() & GROUP_OR_OTHER_WRITE) != 0) {
      throw new Refused(p, "is writable by group or others (mode " + octal(e.mode()) + ")");
    }
  }

  /**
   * Checks that {@code file}, if it exists, is a regular file of this user's of at most {@code
   * maxBytes}: never a link, a FIFO, a device or another user's file.
   *
   * @return whether it exists
   * @throws Refused when it is anything else
   */
  static boolean checkOwnRegularFile(Path file, long maxBytes) throws IOException {
    Optional<Entry> found = lstat(file);
    if (found.isEmpty()) {
      return false;
    }
    Entry e = found.get();
    if (e.type() != REGULAR) {
      throw new Refused(file, "is " + e.describe() + ", not a regular file");
    }
    if (!e.mine()) {
      throw new Refused(file, "is owned by another user (uid " + e.uid() + ")");
    }
    if (e.size() > maxBytes) {
      throw new Refused(file, "is larger than " + maxBytes + " bytes");
    }
    return true;
  }

  /** Why an operation failed, in words: some exceptions carry only the path. */
  static String reason(IOException e) {
    if (e instanceof FileSystemException fs) {
      String reason = fs.getReason();
      if (reason == null) {
        reason =
            fs instanceof AccessDeniedException
                ? "permission denied"
                : fs instanceof NoSuchFileException
                    ? "no such file or directory"
                    : fs instanceof NotDirectoryException
                        ? "not a directory"
                        : fs instanceof FileAlreadyExistsException
                            ? "already exists"
                            : fs.getClass().getSimpleName();
      }
      return fs.getFile() + ": " + reason;
    }
    return e.getMessage();
  }

  private static Optional<Entry> lstat(Path p) throws IOException {
    try {
      if (UNIX) {
        // One lstat for all of them, so they describe the same entry.
        Map<String, Object> a =
            Files.readAttributes(p, "unix:mode,uid,owner,size", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        boolean mine = ME.isPresent() && ME.get().equals(a.get("owner"));
        return Optional.of(
            new Entry(
                mode & TYPE_MASK,
                (Integer) a.get("uid"),
                mine,
                mode & 07777,
                (Long) a.get("size")));
      }
      BasicFileAttributes a =
          Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      int type =
          a.isSymbolicLink() ? LINK : a.isDirectory() ? DIRECTORY : a.isRegularFile() ? REGULAR : 0;
      // No owners or modes to check here (Windows): the user's profile folders are private by
      // default.
      return Optional.of(new Entry(type, -1, true, 0, a.size()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static String octal(int mode) {
    return String.format("%04o", mode);
  }

  /** Owner principals compare by uid; {@code /proc/self} serves when the user name has no entry. */
  private static Optional<UserPrincipal> currentUser() {
    if (!UNIX) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          FileSystems.getDefault()
              .getUserPrincipalLookupService()
              .lookupPrincipalByName(System.getProperty("user.name")));
    } catch (IOException e) {
      try {
        return Optional.of(Files.getOwner(Path.of("/proc/self")));
      } catch (IOException | UnsupportedOperationException noProc) {
        return Optional.empty();
      }
    }
  }
}
