package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a new user types first, from the shaded jar: version, help, status, open, a missing CLI. */
class CommandLineIT {
  private static final List<List<String>> COMMANDS = List.of(
      List.of("serve"), List.of("run"), List.of("open"), List.of("status"), List.of("chat"), List.of("extension"),
      List.of("extension", "install"), List.of("mcp"), List.of("selftest"));

  @TempDir Path temp;

  @Test
  void versionIsTheBuiltVersion() throws Exception {
    JarCommand version = run(CliEnvironment.in(temp).variables(), "--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.stdout()).containsPattern("^companion4j \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n");
  }

  @Test
  void helpListsEveryCommandAndEveryCommandHasHelp() throws Exception {
    Map<String, String> env = CliEnvironment.in(temp).variables();
    JarCommand help = run(env, "--help");
    assertThat(help.exitCode()).isZero();
    for (List<String> command : COMMANDS) {
      if (command.size() == 1) {
        assertThat(help.stdout()).containsPattern("(?m)^\\s+" + command.get(0) + "\\s");
      }
      String[] args = Stream.concat(command.stream(), Stream.of("--help")).toArray(String[]::new);
      JarCommand own = run(env, args);
      assertThat(own.exitCode()).as(String.join(" ", args) + ": " + own.stderr()).isZero();
      assertThat(own.stdout()).as(String.join(" ", args)).containsIgnoringCase("usage");
    }
  }

  @Test
  void runWithoutTheCliSaysWhatToInstallInOneLine() throws Exception {
    Map<String, String> env = new LinkedHashMap<>(CliEnvironment.in(temp).variables());
    env.put("PATH", Files.createDirectories(temp.resolve("empty-bin")).toString());

    for (String cli : List.of("qwen", "gemini")) {
      JarCommand run = run(env, "run", "--", cli);
      assertThat(run.exitCode()).isEqualTo(127);
      assertThat(run.stderr().strip().lines()).singleElement().asString()
          .startsWith("companion4j: cannot run " + cli + ": not found on PATH; install ")
          .contains("npm install -g @" + (cli.equals("qwen") ? "qwen-code/qwen-code" : "google/gemini-cli"));
      assertThat(run.stdout()).doesNotContainIgnoringCase("usage");
    }
  }

  @Test
  void statusShowsOneRowPerCompanionWithItsPageAndItsClisAndTheTokenOnlyOnRequest() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (CompanionProcess companion = CompanionProcess.start(env);
        CliDriver qwen = CliDriver.start(Cli.QWEN, env.workspace(), env.variables())) {
      assertThat(qwen.connect().path("status").asString()).as(qwen.stderr()).isEqualTo("connected");

      JarCommand status = run(env.variables(), "status");
      assertThat(status.exitCode()).as(status.stderr()).isZero();
      List<String> rows = status.stdout().lines().filter(l -> l.startsWith(companion.port() + " ")).toList();
      assertThat(rows).as("one row, though the companion wrote a file per CLI generation").hasSize(1);
      assertThat(rows.get(0))
          .contains("alive", Long.toString(companion.pid()), env.workspace().toString())
          .contains("http://127.0.0.1:" + companion.port() + "/review/")
          .containsPattern("\\(pid \\d+\\)")
          .doesNotContain(companion.token());

      JarCommand withToken = run(env.variables(), "status", "--show-token");
      assertThat(withToken.stdout()).contains("/review/#token=" + companion.token());

      JarCommand json = run(env.variables(), "status", "--json");
      assertThat(json.stdout().lines()).singleElement().asString()
          .contains("\"reviewPage\":\"http://127.0.0.1:" + companion.port() + "/review/\"")
          .contains("\"clients\":[\"")
          .doesNotContain(companion.token());
    }
  }

  @Test
  void openPrintsThePageOfTheCompanionServingThisFolderAndSaysWhatToDoWhenNoneDoes() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path below = Files.createDirectories(env.workspace().resolve("src/deep"));
    Map<String, String> headless = new LinkedHashMap<>(env.variables());
    headless.remove("DISPLAY");
    headless.remove("WAYLAND_DISPLAY");

    JarCommand none = JarCommand.run(headless, below, temp, "open");
    assertThat(none.exitCode()).isEqualTo(1);
    assertThat(none.stderr()).contains("no running Companion4J review page serves " + below).contains("companion4j serve");

    try (CompanionProcess companion = CompanionProcess.start(env)) {
      // Without a display there is no browser to open: the address is printed for the user.
      JarCommand open = JarCommand.run(headless, below, temp, "open");
      assertThat(open.exitCode()).as(open.stderr()).isZero();
      assertThat(open.stdout().strip()).isEqualTo("http://127.0.0.1:" + companion.port() + "/review/#token=" + companion.token());
    }
  }

  private JarCommand run(Map<String, String> env, String... args) throws Exception {
    return JarCommand.run(env, temp, temp, args);
  }
}
