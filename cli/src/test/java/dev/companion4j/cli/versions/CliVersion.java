package dev.companion4j.cli.versions;

import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One published release of a CLI in the version matrix, with the checks it is known to fail and
 * why: the matrix asserts exactly these, so a CLI (or companion) change either way shows.
 *
 * @param inCi whether {@code ./test.sh} runs it; the others run with {@code scripts/cli-matrix.sh}
 * @param limits the checks this release fails, with the reason
 */
record CliVersion(Cli cli, String version, boolean inCi, Map<Check, String> limits) {

  /** Versions pinned in {@code test-peers/package.json}; the others have their own install. */
  private static final Map<Cli, String> PINNED = Map.of(Cli.QWEN, "0.24.4", Cli.GEMINI, "0.61.0");

  private static final String PID_ONLY =
      "reads discovery files only under the pid it takes for the IDE (its shell's"
          + " grandparent); the variables only choose among those files";
  private static final String PID_WITHOUT_PORT =
      "without `QWEN_CODE_IDE_SERVER_PORT` it reads only the file named"
          + " after the pid it takes for the IDE (its shell's grandparent)";

  private static final String VS_CODE_ONLY =
      "knows an IDE only in VS Code's terminal (`TERM_PROGRAM=vscode`), whatever"
          + " its discovery file says; telling it so would make newer releases too behave as in VS Code's terminal";

  /**
   * Qwen Code and Gemini CLI, oldest first: each Qwen line named in the issue, Gemini every ten
   * minors and the 0.6 to 0.9 releases published (0.9 was not).
   */
  static final List<CliVersion> ALL =
      List.of(
          new CliVersion(
              Cli.QWEN,
              "0.1.3",
              true,
              Map.of(Check.VARIABLES, PID_ONLY, Check.ELSEWHERE, PID_ONLY)),
          new CliVersion(Cli.QWEN, "0.5.2", false, Map.of(Check.ELSEWHERE, PID_WITHOUT_PORT)),
          new CliVersion(Cli.QWEN, "0.10.1", false, Map.of(Check.ELSEWHERE, PID_WITHOUT_PORT)),
          new CliVersion(Cli.QWEN, "0.15.10", false, Map.of()),
          new CliVersion(Cli.QWEN, "0.21.10", false, Map.of()),
          new CliVersion(Cli.QWEN, "0.24.4", true, Map.of()),
          new CliVersion(
              Cli.GEMINI,
              "0.1.13",
              false,
              Map.of(
                  Check.LOADS,
                  "no IDE client: its IDE mode adds the IDE as a"
                      + " plain MCP server at `localhost:$GEMINI_CLI_IDE_SERVER_PORT` that it calls without a token, and only in"
                      + " VS Code's terminal (`TERM_PROGRAM=vscode`); a companion that requires its token cannot serve it")),
          new CliVersion(
              Cli.GEMINI,
              "0.6.1",
              false,
              Map.of(
                  Check.BESIDE,
                  VS_CODE_ONLY,
                  Check.RUN,
                  VS_CODE_ONLY,
                  Check.VARIABLES,
                  VS_CODE_ONLY,
                  Check.ELSEWHERE,
                  VS_CODE_ONLY)),
          new CliVersion(
              Cli.GEMINI,
              "0.8.2",
              true,
              Map.of(Check.VARIABLES, PID_ONLY, Check.ELSEWHERE, PID_ONLY)),
          new CliVersion(
              Cli.GEMINI,
              "0.10.0",
              false,
              Map.of(Check.VARIABLES, PID_ONLY, Check.ELSEWHERE, PID_ONLY)),
          new CliVersion(
              Cli.GEMINI,
              "0.20.2",
              false,
              Map.of(Check.VARIABLES, PID_ONLY, Check.ELSEWHERE, PID_ONLY)),
          new CliVersion(
              Cli.GEMINI,
              "0.30.1",
              false,
              Map.of(Check.VARIABLES, PID_ONLY, Check.ELSEWHERE, PID_ONLY)),
          new CliVersion(Cli.GEMINI, "0.40.1", false, Map.of()),
          new CliVersion(Cli.GEMINI, "0.51.0", false, Map.of()),
          new CliVersion(Cli.GEMINI, "0.61.0", true, Map.of()));

  /** What the matrix checks, in the order it checks them: the columns of the table. */
  enum Check {
    LOADS("IDE client"),
    BESIDE("found beside the companion"),
    RUN("found under `companion4j run`"),
    VARIABLES("found elsewhere, with the terminal variables"),
    ELSEWHERE("found elsewhere, without them"),
    CONTEXT("context"),
    ACCEPT_EDITED("accept with edits"),
    REJECT("reject"),
    CLOSE_DIFF("closeDiff");

    final String heading;

    Check(String heading) {
      this.heading = heading;
    }
  }

  String product() {
    return cli == Cli.QWEN ? "Qwen Code" : "Gemini CLI";
  }

  /** The directory whose {@code node_modules} holds this release. */
  Path packages() {
    return version.equals(PINNED.get(cli))
        ? TestPeers.dir()
        : TestPeers.dir().resolve("versions").resolve(directoryName());
  }

  String directoryName() {
    return (cli == Cli.QWEN ? "qwen-" : "gemini-") + version;
  }

  /**
   * Whether it connects at all: the diff checks run on the connection made beside the companion.
   */
  boolean supported() {
    return !limits.containsKey(Check.LOADS) && !limits.containsKey(Check.BESIDE);
  }

  @Override
  public String toString() {
    return product() + " " + version;
  }
}
