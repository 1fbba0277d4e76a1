package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** What another local user leaves in the shared directories, made with the tools they would use. */
final class Planted {
  private static final int MKFIFO_BATCH = 1_000;

  private Planted() {}

  static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Skips the calling test unless it runs as root, which alone can give files to another user. */
  static void assumeRoot() {
    Assumptions.assumeTrue(
        root(),
        "only root can make files owned by another user (nobody); run as root to test this");
  }

  static void fifos(List<Path> paths) throws Exception {
    for (int from = 0; from < paths.size(); from += MKFIFO_BATCH) {
      List<String> command = new ArrayList<>(List.of("mkfifo"));
      paths
          .subList(from, Math.min(paths.size(), from + MKFIFO_BATCH))
          .forEach(p -> command.add(p.toString()));
      run(command);
    }
  }

  static Path devZero(Path link) throws IOException {
    return Files.createSymbolicLink(link, Path.of("/dev/zero"));
  }

  /** Sets the mode with chmod(1), as a careless or hostile user would. */
  static Path chmod(String mode, Path path) throws Exception {
    run(List.of("chmod", mode, path.toString()));
    return path;
  }

  /** Gives the file (the link itself, for a symbolic link) to the user nobody. */
  static Path giveToNobody(Path path) throws IOException {
    Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .setOwner(
            path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
    return path;
  }

  /**
   * Makes a directory of this user's unwritable: mode 0555, or for root, whom modes do not stop,
   * the immutable attribute (the test is skipped where the file system has none).
   */
  static Path unwritable(Path dir) throws Exception {
    if (!root()) {
      return chmod("555", dir);
    }
    Process chattr =
        new ProcessBuilder("chattr", "+i", dir.toString()).redirectErrorStream(true).start();
    String out = new String(chattr.getInputStream().readAllBytes());
    Assumptions.assumeTrue(
        chattr.waitFor() == 0,
        "root can write anywhere but to an immutable directory; chattr +i failed: " + out);
    return dir;
  }

  /** Undoes {@link #unwritable}, so that the test's folder can be deleted. */
  static void writable(Path dir) throws Exception {
    if (root()) {
      new ProcessBuilder("chattr", "-i", dir.toString())
          .redirectErrorStream(true)
          .start()
          .waitFor();
    } else {
      chmod("755", dir);
    }
  }

  private static void run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(command.get(0) + ": " + out).isZero();
  }
}
