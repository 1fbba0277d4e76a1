package dev.companion4j.engine.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** What another local user leaves in a shared directory, made with the tools they would use. */
final class Plant {
  private Plant() {}

  static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Skips the calling test unless it runs as root, which alone can give files to another user. */
  static void assumeRoot() {
    Assumptions.assumeTrue(
        root(),
        "only root can make files owned by another user (nobody); run as root to test this");
  }

  static Path fifo(Path path) throws Exception {
    Files.createDirectories(path.getParent());
    run(List.of("mkfifo", path.toString()));
    return path;
  }

  static Path link(Path path, Path target) throws IOException {
    Files.createDirectories(path.getParent());
    return Files.createSymbolicLink(path, target);
  }

  /**
   * Sets the mode with chmod(1), which also sets the sticky bit that PosixFilePermission cannot
   * express.
   */
  static Path chmod(String mode, Path path) throws Exception {
    run(List.of("chmod", mode, path.toString()));
    return path;
  }

  /** Gives the file (the link itself, for a symbolic link) to the user nobody. */
  static Path giveToNobody(Path path) throws IOException {
    UserPrincipalLookupService users = path.getFileSystem().getUserPrincipalLookupService();
    Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .setOwner(users.lookupPrincipalByName("nobody"));
    return path;
  }

  private static void run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor()).as(String.join(" ", command)).isZero();
  }
}
