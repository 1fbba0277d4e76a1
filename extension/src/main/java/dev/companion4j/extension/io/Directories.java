package dev.companion4j.extension.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Directory trees the extension writes and replaces: generated output, staged installs, scratch. */
public final class Directories {
  private Directories() {}

  /**
   * Creates {@code dir} and its missing parents for this user alone (0700): what is staged,
   * recorded or announced there is nobody else's to read or replace.
   */
  public static Path createOwnerOnly(Path dir) throws IOException {
    return Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
  }

  /** Deletes {@code dir} and everything in it, links themselves rather than what they lead to; nothing when it is absent. */
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
