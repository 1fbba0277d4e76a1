package dev.companion4j.extension.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A CLI's extensions command run without a person, played by a shell script that asks on stdin. */
class CliRunTest {
  private final ByteArrayOutputStream shown = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(shown, true, StandardCharsets.UTF_8);

  @Test
  void aQuestionTheInstallerDoesNotKnowStopsTheRunAtOnceAndIsQuoted() throws Exception {
    long start = System.nanoTime();
    int status =
        new CliRun(
                out,
                "Some CLI",
                List.of(
                    "sh",
                    "-c",
                    "echo Installing; printf 'Overwrite your settings? [y/N]: '; read a; echo \"answered $a\""),
                Path.of("").toAbsolutePath(),
                List.of())
            .run();

    assertThat(status).isEqualTo(CliRun.STOPPED);
    assertThat(System.nanoTime() - start)
        .as("well before the 120 s bound")
        .isLessThan(20_000_000_000L);
    assertThat(text())
        .contains("Installing\nOverwrite your settings? [y/N]: \n")
        .contains(
            "Some CLI asked a question this installer does not answer: \"Overwrite your settings? [y/N]:\"")
        .contains("at a terminal, without --yes")
        .doesNotContain("answered");
  }

  @Test
  void anExpectedQuestionIsAnsweredAsItIsAskedAndTheAnswerIsSaid() throws Exception {
    int status =
        new CliRun(
                out,
                "Some CLI",
                List.of(
                    "sh",
                    "-c",
                    "echo 'The source at \"/x\" is not trusted.'; printf 'Trust it? [y/N]: '; read a; echo \"answered $a\"; [ \"$a\" = y ]"),
                Path.of("").toAbsolutePath(),
                List.of(
                    new CliRun.Prompt("at \"/x\"", "Trust it? [y/N]", "y", "Answered yes for /x.")))
            .run();

    assertThat(status).isZero();
    assertThat(text()).contains("Trust it? [y/N]: \nAnswered yes for /x.\nanswered y");
  }

  @Test
  void theSameQuestionAboutAnotherFolderIsNotAnswered() throws Exception {
    int status =
        new CliRun(
                out,
                "Some CLI",
                List.of(
                    "sh",
                    "-c",
                    "echo 'The source at \"/elsewhere\" is not trusted.'; printf 'Trust it? [y/N]: '; read a; echo \"answered $a\""),
                Path.of("").toAbsolutePath(),
                List.of(
                    new CliRun.Prompt("at \"/x\"", "Trust it? [y/N]", "y", "Answered yes for /x.")))
            .run();

    assertThat(status).isEqualTo(CliRun.STOPPED);
    assertThat(text())
        .contains("asked a question this installer does not answer: \"Trust it? [y/N]:\"")
        .doesNotContain("answered y");
  }

  private String text() {
    return shown.toString(StandardCharsets.UTF_8);
  }
}
