package dev.companion4j.extension.io;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Directory trees the extension writes and replaces: generated output, staged installs, scratch,
 * state.
 */
public final class Directories {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OTHERS_WRITE =
      EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  private Directories() {}

  /**
   * Creates {@code dir} and its missing parents for this user alone (0700), or makes sure an
   * existing {@code dir} is one: a directory of this user's, not a link, tightened to 0700 when
   * others had access. What is staged, recorded or logged there is nobody else's to read, plant or
   * replace.
   *
   * @throws IOException when {@code dir} is a link, not a directory, or another user's
   */
  public static Path createOwnerOnly(Path dir) throws IOException {
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir, ownerOnly);
    }
    PosixFileAttributes a =
        Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!a.isDirectory()) {
      throw new IOException(
          dir
              + " is a link or not a directory: Companion4J keeps its state only in a directory of its own");
    }
    if (!a.owner().equals(currentUser())) {
      throw new IOException(
          dir
              + " belongs to "
              + a.owner().getName()
              + ", not to this user: Companion4J keeps no state there");
    }
    if (!a.permissions().equals(OWNER_ONLY)) {
      Files.setPosixFilePermissions(dir, OWNER_ONLY);
    }
    return dir;
  }

  /**
   * Whether what {@code path} holds can only be this user's doing: it is no link, it is this
   * user's, and neither group nor others may write it.
   */
  public static boolean isPrivate(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    PosixFileAttributes a =
        Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    return !a.isSymbolicLink()
        && a.owner().equals(currentUser())
        && a.permissions().stream().noneMatch(OTHERS_WRITE::contains);
  }

  private static UserPrincipal currentUser() throws IOException {
    return FileSystems.getDefault()
        .getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
  }

  /**
   * Deletes {@code dir} and everything in it, links themselves rather than what they lead to;
   * nothing when it is absent.
   */
  public static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> files = Files.walk(dir)) {
      all = files.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : all) {
      Files.delete(p);
    }
  }
}
