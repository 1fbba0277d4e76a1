package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Emacs package's own tests of its review and context logic ({@code editors/emacs/test/}, ERT),
 * run in a headless Emacs against a stand-in for {@code companion4j attach}: a failure shows ERT's
 * report.
 */
class EmacsPluginUnitIT {
  private static final Path EMACS = Path.of("/usr/bin/emacs");

  @TempDir Path home;

  @Test
  void theErtSuitePasses() throws Exception {
    if (!Files.isExecutable(EMACS)) {
      throw new IllegalStateException(
          "No " + EMACS + "; the test command installs Debian's emacs-nox");
    }
    Path plugin = TestPeers.repoRoot().resolve("editors/emacs");
    JarCommand ert =
        JarCommand.run(
            List.of(
                EMACS.toString(),
                "--batch",
                "-Q",
                "-L",
                plugin.toString(),
                "-l",
                plugin.resolve("test/companion4j-test.el").toString(),
                "-f",
                "ert-run-tests-batch-and-exit"),
            Map.of(
                "HOME",
                home.toString(),
                "PATH",
                System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                "LANG",
                "C.UTF-8"),
            home,
            home);
    // ERT reports on standard error in batch mode.
    assertThat(ert.exitCode()).as(ert.stderr()).isZero();
    assertThat(ert.stderr())
        .containsPattern("Ran \\d+ tests, \\d+ results as expected, 0 unexpected");
  }
}
