package dev.companion4j.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/** The default way a host writes an accepted change: each file replaced whole, atomically. */
final class ChangeFiles {
  private ChangeFiles() {}

  /**
   * Writes each file through a temporary file beside it that then replaces it, keeping its
   * permissions: a reader sees the old text or the new, never half of it.
   */
  static void write(Map<Path, String> contents) throws HostActionException {
    for (Map.Entry<Path, String> file : contents.entrySet()) {
      Path path = file.getKey();
      Path temp = null;
      try {
        Path dir = path.getParent();
        Files.createDirectories(dir);
        temp = Files.createTempFile(dir, "." + path.getFileName() + ".", ".companion4j");
        Files.writeString(temp, file.getValue(), StandardCharsets.UTF_8);
        if (Files.exists(path)
            && Files.getFileAttributeView(path, PosixFileAttributeView.class) != null) {
          Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(path));
        } else if (Files.getFileAttributeView(temp, PosixFileAttributeView.class) != null) {
          Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
        }
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        try {
          if (temp != null) {
            Files.deleteIfExists(temp);
          }
        } catch (IOException ignored) {
          // The write failed already; that is what the asker hears.
        }
        throw new HostActionException("could not write " + path + ": " + e.getMessage());
      }
    }
  }
}
