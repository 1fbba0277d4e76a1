package dev.companion4j.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the test command installed the pinned npm test peers (the real CLIs among them). */
public final class TestPeers {
  private TestPeers() {}

  /** The {@code test-peers} folder; fails with a hint when its packages are not installed. */
  public static Path dir() {
    String configured = System.getProperty("companion4j.testPeers");
    Path dir = configured != null ? Path.of(configured) : Path.of("test-peers").toAbsolutePath();
    if (!Files.isDirectory(dir.resolve("node_modules/@qwen-code/qwen-code"))) {
      throw new IllegalStateException(
          "The real CLIs are not installed in "
              + dir
              + "/node_modules; run ./test.sh, which installs them");
    }
    return dir;
  }

  /** The driver script for the CLIs' own IdeClient. */
  public static Path ideClientDriver() {
    return dir().resolve("ide-client-driver.mjs");
  }

  /** The repository root. */
  public static Path repoRoot() {
    String configured = System.getProperty("companion4j.repoRoot");
    return configured != null ? Path.of(configured) : dir().getParent();
  }
}
