package dev.companion4j.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code run --remote} refuses what cannot work before it writes or starts anything. */
class RunRemoteOptionsTest {
  @TempDir Path temp;
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = Main.commandLine(args);
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  \t "})
  void aCommandLineWithoutWordsIsAUsageError(String line) {
    assertThat(run("run", "--remote", line, "--", "true")).isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "--remote is empty; give the command that reaches the companion, e.g. 'ssh laptop companion4j bridge");
  }

  @Test
  void theWorkspaceMustExist() {
    Path missing = temp.resolve("missing");

    assertThat(run("run", "--remote", "sh bridge", "--workspace", missing.toString(), "--", "true"))
        .isEqualTo(2);
    assertThat(err.toString()).startsWith("--workspace is not a directory: " + missing);
  }

  @Test
  void theCommandTheClisWouldStartMustExist() {
    assertThat(
            run(
                "run",
                "--remote",
                "no-such-program-c4j bridge",
                "--workspace",
                temp.toString(),
                "--",
                "true"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith("--remote: cannot run no-such-program-c4j: not found on PATH");
  }

  @Test
  void thereIsNoLocalReviewPageToOpen() {
    assertThat(
            run(
                "run",
                "--remote",
                "sh bridge",
                "--open",
                "--workspace",
                temp.toString(),
                "--",
                "true"))
        .isEqualTo(2);
    assertThat(err.toString()).startsWith("--open shows a local companion's review page");
  }
}
