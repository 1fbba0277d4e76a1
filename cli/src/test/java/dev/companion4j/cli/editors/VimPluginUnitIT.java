package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Vim plugin's own unit tests ({@code editors/vim/test/test_*.vim}, Vim's {@code assert_*}
 * functions), each file in a headless Vim; a failure shows Vim's report of it.
 */
class VimPluginUnitIT {
  private static final Path VIM = Path.of("/usr/bin/vim");
  private static final Path TESTS = TestPeers.repoRoot().resolve("editors/vim/test");

  @TempDir Path temp;

  static Stream<String> testFiles() throws IOException {
    try (Stream<Path> files = Files.list(TESTS)) {
      List<String> names =
          files
              .map(f -> f.getFileName().toString())
              .filter(n -> n.matches("test_.*\\.vim"))
              .sorted()
              .toList();
      assertThat(names).as("test files in " + TESTS).isNotEmpty();
      return names.stream();
    }
  }

  @ParameterizedTest
  @MethodSource("testFiles")
  void passes(String file) throws Exception {
    if (!Files.isExecutable(VIM)) {
      throw new IllegalStateException("No " + VIM + "; the test command installs Debian's vim");
    }
    Files.createDirectories(temp.resolve("home"));
    // A home and temporary folder of its own: the tests make their workspaces there.
    Map<String, String> env =
        Map.of(
            "HOME", temp.resolve("home").toString(),
            "TMPDIR", temp.toString(),
            "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
            "LANG", "C.UTF-8");
    JarCommand vim =
        JarCommand.run(
            List.of(
                VIM.toString(),
                "-Nu",
                "NONE",
                "-es",
                "-S",
                TESTS.resolve("run.vim").toString(),
                TESTS.resolve(file).toString()),
            env,
            TESTS,
            temp);

    String report = vim.stdout() + vim.stderr();
    assertThat(vim.exitCode()).as(report).isZero();
    assertThat(vim.stdout()).as(report).contains("ok Test_").doesNotContain("FAILED");
  }
}
