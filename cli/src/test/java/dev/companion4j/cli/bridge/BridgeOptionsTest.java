package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code companion4j bridge}'s command line as picocli reads it, and how it picks the companion:
 * every mistake gets one precise line, and the token never shows.
 */
class BridgeOptionsTest {
  private static final String TOKEN = "secret-token-0123456789abcdef";

  @TempDir Path temp;

  /** The options as {@code bridge} has them; calling it only checks the mappings. */
  @Command(name = "bridge")
  static final class BridgeLine extends BridgeOptions implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      paths(spec.commandLine());
      return 0;
    }
  }

  private record Outcome(int exitCode, String err, BridgeOptions options) {}

  private static Outcome execute(String... args) {
    BridgeLine command = new BridgeLine();
    StringWriter err = new StringWriter();
    CommandLine cl =
        new CommandLine(command)
            .setErr(new PrintWriter(err))
            .setOut(new PrintWriter(new StringWriter()));
    int code = cl.execute(args);
    return new Outcome(code, err.toString(), command);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--map|/workspaces/app|Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): /workspaces/app: expected CLI_PATH=COMPANION_PATH, e.g. /workspaces/app=/home/me/app, but there is no '='",
        "--map|app=/home/me/app|Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): app=/home/me/app: the CLI path must be absolute: app",
        "--map|/workspaces/app=me/app|Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): /workspaces/app=me/app: the companion path must be absolute: me/app",
        "--map|/workspaces/app=|Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): /workspaces/app=: the companion path after '=' is empty",
        "--map|=/home/me/app|Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): =/home/me/app: the CLI path is empty",
        "--port|0|Invalid value for option '--port': 0: a port is a number from 1 to 65535",
        "--port|http|Invalid value for option '--port': http: a port is a number from 1 to 65535",
      })
  void aBadValueGetsOnePreciseLineAndTheUsageExitCode(String option, String value, String message) {
    Outcome outcome = execute(option, value);

    assertThat(outcome.exitCode())
        .isEqualTo(CommandLine.ExitCode.USAGE)
        .isEqualTo(Bridge.EXIT_USAGE);
    assertThat(outcome.err().lines().findFirst()).hasValue(message);
  }

  @Test
  void twoMappingsOfOneSideAreRefused() {
    Outcome outcome = execute("--map", "/w/app=/home/me/app", "--map", "/w/app/=/home/me/other");

    assertThat(outcome.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(outcome.err().lines().findFirst())
        .hasValue(
            "Invalid value for option '--map' (CLI_PATH=COMPANION_PATH): two mappings give the CLI path /w/app");
  }

  @Test
  void theCompanionIsNamedOneWayAtMost() {
    assertThat(execute("--workspace", "/a", "--port", "4000").err().lines().findFirst())
        .hasValue("Error: --workspace=DIR, --port=PORT are mutually exclusive (specify only one)");
    assertThat(execute("--port", "4000", "--address", "127.0.0.1:4000", "--token-file", "t").err())
        .contains("are mutually exclusive");
  }

  @Test
  void anAddressNeedsATokenFileAndATokenFileAnAddress() {
    assertThat(execute("--address", "127.0.0.1:4000").err().lines().findFirst())
        .hasValue("Error: Missing required argument(s): --token-file=FILE");
    assertThat(execute("--token-file", "t").err().lines().findFirst())
        .hasValue("Error: Missing required argument(s): --address=HOST:PORT");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "localhost|Invalid value for option '--address': localhost: expected HOST:PORT, e.g. 127.0.0.1:41233, but there is no ':'",
        "::1:4000|Invalid value for option '--address': ::1:4000: an IPv6 host goes in brackets, e.g. [::1]:41233",
        "host:99999|Invalid value for option '--address': host:99999: the port must be 1 to 65535, not 99999",
        ":4000|Invalid value for option '--address': :4000: the host is empty",
      })
  void aBadAddressSaysWhatIsWrong(String address, String message) {
    assertThat(execute("--address", address, "--token-file", "t").err().lines().findFirst())
        .hasValue(message);
  }

  @Test
  void withoutASelectorTheCompanionServingTheFirstMappingsCompanionSideIsLookedFor()
      throws Exception {
    DiscoveryLocations nowhere = new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"));
    Outcome outcome =
        execute("--map", "/workspaces/app=/home/me/app", "--map", "/other=/home/me/other");

    assertThatThrownBy(() -> outcome.options().target(outcome.options().paths(null), temp, nowhere))
        .isInstanceOfSatisfying(
            BridgeFailure.class, f -> assertThat(f.exitCode()).isEqualTo(Bridge.EXIT_UNREACHABLE))
        .hasMessage(
            "no running companion of yours serves /home/me/app (looked in "
                + temp.resolve("qwen/ide")
                + ", "
                + temp.resolve("tmp/qwen/ide")
                + ", "
                + temp.resolve("tmp/gemini/ide")
                + " and "
                + temp.resolve("tmp")
                + "); start one with: companion4j serve --workspace /home/me/app");
  }

  @Test
  void withoutASelectorOrMappingTheCurrentDirectoryIsLookedFor() {
    DiscoveryLocations nowhere = new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"));
    Outcome none = execute();
    Outcome relative = execute("--workspace", "sub/dir");

    assertThatThrownBy(() -> none.options().target(none.options().paths(null), temp, nowhere))
        .hasMessageStartingWith("no running companion of yours serves " + temp + " (looked in");
    assertThatThrownBy(
            () -> relative.options().target(relative.options().paths(null), temp, nowhere))
        .hasMessageStartingWith(
            "no running companion of yours serves " + temp.resolve("sub/dir") + " (looked in");
  }

  @Test
  void aPortWithoutADiscoveryFileIsNoCompanion() {
    DiscoveryLocations nowhere = new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"));
    Outcome outcome = execute("--port", "4000");

    assertThatThrownBy(() -> outcome.options().target(outcome.options().paths(null), temp, nowhere))
        .isInstanceOfSatisfying(
            BridgeFailure.class, f -> assertThat(f.exitCode()).isEqualTo(Bridge.EXIT_UNREACHABLE))
        .hasMessageStartingWith(
            "no running companion of yours on port 4000 (looked in " + temp.resolve("qwen/ide"));
  }

  @Test
  void anOwnerOnlyTokenFileGivesItsTokenWhichNoStringShows() throws Exception {
    Path file = tokenFile("rw-------", TOKEN + "\n");
    Outcome outcome = execute("--address", "[::1]:4000", "--token-file", file.toString());

    CompanionTarget target = outcome.options().target(outcome.options().paths(null), temp, null);

    assertThat(target.token()).isEqualTo(TOKEN);
    assertThat(target.endpoint()).hasToString("http://[::1]:4000/mcp");
    assertThat(target.description()).isEqualTo("the companion at [::1]:4000");
    assertThat(target.toString()).doesNotContain(TOKEN);
  }

  @ParameterizedTest
  @CsvSource({"rw-r-----", "rw----r--", "rw-rw----", "rw------x"})
  void aTokenFileOthersMayTouchIsRefusedAsSshRefusesAKey(String permissions) throws Exception {
    Path file = tokenFile(permissions, TOKEN);
    Outcome outcome = execute("--address", "127.0.0.1:4000", "--token-file", file.toString());

    assertThatThrownBy(() -> outcome.options().target(outcome.options().paths(null), temp, null))
        .isInstanceOfSatisfying(
            BridgeFailure.class, f -> assertThat(f.exitCode()).isEqualTo(Bridge.EXIT_USAGE))
        .hasMessage(
            "--token-file "
                + file
                + " is accessible by group or others ("
                + permissions
                + "); it must be its owner's only: chmod 600 "
                + file)
        .message()
        .doesNotContain(TOKEN);
  }

  @Test
  void aMissingEmptyOrNonRegularTokenFileIsRefusedWithTheReason() throws Exception {
    Path missing = temp.resolve("missing");
    Path empty = tokenFile("rw-------", " \n");
    Path dir =
        Files.createDirectory(
            temp.resolve("dir"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));

    assertThatThrownBy(() -> TokenFile.read(missing))
        .hasMessage("--token-file " + missing + " does not exist");
    assertThatThrownBy(() -> TokenFile.read(empty))
        .hasMessage("--token-file " + empty + " is empty");
    assertThatThrownBy(() -> TokenFile.read(dir))
        .hasMessage("--token-file " + dir + " is not a regular file");
  }

  private Path tokenFile(String permissions, String content) throws IOException {
    Path file = Files.createTempFile(temp, "token", ".txt");
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
    return file;
  }
}
