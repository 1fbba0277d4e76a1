package dev.companion4j.cli.bridge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Set;

/**
 * A companion's token in a file of its own ({@code --token-file}), refused as ssh refuses a private
 * key: unless it is a regular file of this user's that nobody else may read, write or run.
 */
final class TokenFile {
  private static final int MAX_BYTES = 64 * 1024;
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(
          PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE);

  private TokenFile() {}

  /**
   * The token: the file's text without surrounding white space.
   *
   * @throws BridgeFailure with the usage exit code and what is wrong with the file
   */
  static String read(Path file) throws BridgeFailure {
    String name = "--token-file " + file;
    try {
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class);
        if (!attributes.isRegularFile()) {
          throw usage(name + " is not a regular file");
        }
        if (!attributes.owner().equals(currentUser(file))) {
          throw usage(
              name + " belongs to " + attributes.owner().getName() + "; it must be your own");
        }
        Set<PosixFilePermission> others = EnumSet.copyOf(attributes.permissions());
        others.removeAll(OWNER_ONLY);
        if (!others.isEmpty()) {
          throw usage(
              name
                  + " is accessible by group or others ("
                  + PosixFilePermissions.toString(attributes.permissions())
                  + "); it must be its owner's only: chmod 600 "
                  + file);
        }
      }
      if (Files.size(file) > MAX_BYTES) {
        throw usage(
            name + " is larger than " + MAX_BYTES / 1024 + " KiB; it must hold the token only");
      }
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.isEmpty()) {
        throw usage(name + " is empty");
      }
      return token;
    } catch (NoSuchFileException e) {
      throw usage(name + " does not exist");
    } catch (IOException e) {
      throw usage(name + " cannot be read: " + e.getMessage());
    }
  }

  /**
   * This user; {@code /proc/self} serves where the user name has no entry (a container's arbitrary
   * uid).
   */
  private static UserPrincipal currentUser(Path file) throws IOException {
    try {
      return file.getFileSystem()
          .getUserPrincipalLookupService()
          .lookupPrincipalByName(System.getProperty("user.name"));
    } catch (IOException e) {
      return Files.getOwner(Path.of("/proc/self"));
    }
  }

  private static BridgeFailure usage(String message) {
    return new BridgeFailure(Bridge.EXIT_USAGE, message);
  }
}
