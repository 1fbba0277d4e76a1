package dev.companion4j.cli.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code companion4j extension install} as a person meets it: each real CLI at its default settings
 * (Gemini CLI's folder trust on), at a terminal where the person answers the CLI's own questions,
 * and with a {@code HOME} that is not the password database's.
 */
class ExtensionInstallIT {
  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path root;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void atATerminalThePersonAnswersTheClisOwnQuestionsAndTheExtensionWorks(Kind kind)
      throws Exception {
    try (FakeModelServer model = new FakeModelServer()) {
      HeadlessCli cli = new HeadlessCli(kind, CliEnvironment.in(root), model);
      Map<String, String> env = cli.variables();
      List<String> command =
          CompanionProcess.command(
              "extension",
              "install",
              "--cli",
              kind.runtime,
              "--cli-command",
              kind.executable().toString());
      List<String> asked = new ArrayList<>();
      try (Tmux terminal = Tmux.start(command, cli.env.workspace(), env)) {
        // Answer each question as it shows, as a person reads the screen: trust and consent yes,
        // settings their default.
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(300))
            .until(
                () -> {
                  String screen = terminal.screen();
                  if (terminal.exitStatus() != null) {
                    return true;
                  }
                  String last = screen.strip();
                  last = last.substring(last.lastIndexOf('\n') + 1);
                  int seen =
                      count(screen, "trust this folder and continue with the installation? [y/N]")
                          + count(screen, "Do you want to continue? [Y/n]")
                          + count(screen, "? Start a companion");
                  if (seen > asked.size()) {
                    asked.add(last);
                    if (last.contains("[y/N]") || last.contains("[Y/n]")) {
                      terminal.type("y");
                    }
                    terminal.press("Enter");
                  }
                  return false;
                });
        assertThat(terminal.exitStatus()).as(terminal.screen()).isZero();
        assertThat(terminal.screen())
            .contains(
                "Answer "
                    + (kind == Kind.QWEN ? "Qwen Code" : "Gemini CLI")
                    + "'s questions below.")
            .contains("installed a copy of the extension 'companion4j'");
      }
      if (kind == Kind.GEMINI) {
        assertThat(String.join("\n", asked)).contains("trust this folder");
        assertTrustedOnlyTheStagedFolder(cli, cli.state);
      }
      assertTheExtensionWorks(cli);
    }
  }

  /** The JVM's user.home is the password database's (root's here); HOME points elsewhere. */
  @Test
  void withHomeElsewhereTheExtensionIsStagedAndTheHooksAndDiscoveryUseHome() throws Exception {
    try (FakeModelServer model = new FakeModelServer()) {
      HeadlessCli cli = new HeadlessCli(Kind.QWEN, CliEnvironment.in(root), model);
      Path home = cli.env.home();
      assertThat(home).isNotEqualTo(Path.of(System.getProperty("user.home")));
      Map<String, String> env = new LinkedHashMap<>(cli.variables());
      env.remove("COMPANION4J_STATE");
      env.remove("QWEN_HOME");

      HeadlessCli.Result install = installWithoutTerminal(cli, env);
      assertThat(install.exitCode()).as(install.stdout() + install.stderr()).isZero();
      assertThat(install.stdout())
          .contains(
              "Staged the Qwen Code extension in " + home.resolve(".companion4j/extensions/qwen"));

      AtomicReference<List<String>> during = new AtomicReference<>();
      model.script(
          r -> {
            during.compareAndSet(
                null,
                List.of(
                    listing(home.resolve(".companion4j/sessions")),
                    listing(home.resolve(".qwen/ide"))));
            return Optional.empty();
          });
      HeadlessCli.Result run =
          run(
              List.of("node", Kind.QWEN.executable().toString(), "-p", "hello", "--yolo"),
              cli,
              env);
      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(during.get()).as("what HOME held while the session ran").isNotNull();
      assertThat(during.get().get(0))
          .as("the hook's record of the companion it started")
          .contains(".companion");
      assertThat(during.get().get(1)).as("the companion's discovery file").contains(".lock");

      HeadlessCli.Result uninstall =
          run(
              CompanionProcess.command(
                  "extension",
                  "uninstall",
                  "--cli",
                  "qwen",
                  "--cli-command",
                  Kind.QWEN.executable().toString()),
              cli,
              env);
      assertThat(uninstall.exitCode()).as(uninstall.stdout() + uninstall.stderr()).isZero();
      assertThat(uninstall.stdout())
          .contains(
              "Removed the staged extension",
              "Qwen Code no longer has the extension 'companion4j'");
      assertThat(home.resolve(".companion4j/extensions/qwen")).doesNotExist();
      HeadlessCli.Result list =
          run(List.of("node", Kind.QWEN.executable().toString(), "extensions", "list"), cli, env);
      assertThat(list.stdout() + list.stderr()).doesNotContain("Companion4J (");
    }
  }

  /** {@code companion4j extension install} with no terminal and the CLI's own trust settings. */
  static HeadlessCli.Result installWithoutTerminal(HeadlessCli cli, Map<String, String> env)
      throws Exception {
    return run(
        CompanionProcess.command(
            "extension",
            "install",
            "--cli",
            cli.kind.runtime,
            "--cli-command",
            cli.kind.executable().toString()),
        cli,
        env);
  }

  /** Gemini CLI's trusted folders hold the staged folder alone, as the installer said. */
  static void assertTrustedOnlyTheStagedFolder(HeadlessCli cli, Path stateDir) throws IOException {
    Path trusted = cli.env.home().resolve(".gemini/trustedFolders.json");
    assertThat(JsonMapper.shared().readTree(trusted.toFile()).propertyNames())
        .containsExactly(stateDir.resolve("extensions/gemini").toString());
  }

  /** Lists the extension, connects its MCP server and refuses {@code rm -rf} under --yolo. */
  private static void assertTheExtensionWorks(HeadlessCli cli) throws Exception {
    HeadlessCli.Result list = cli.cli("extensions", "list");
    assertThat(list.stdout() + list.stderr())
        .contains((cli.kind == Kind.QWEN ? "Companion4J" : "companion4j") + " (0.1.0)");
    HeadlessCli.Result mcp = cli.cli("mcp", "list");
    assertThat((mcp.stdout() + mcp.stderr()).lines().filter(l -> l.contains("companion4j")))
        .anySatisfy(line -> assertThat(line).contains("Connected"));
    Path dir = cli.env.file("somedir/keep.txt", "keep me\n").getParent();
    int before = cli.model.requests().size();
    HeadlessCli.Result rm =
        cli.prompt("Tidy up [[call run_shell_command {\"command\":\"rm -rf somedir\"}]]", Map.of());
    assertThat(rm.exitCode()).as(rm.stderr()).isZero();
    assertThat(dir).isDirectory();
    assertThat(cli.toolResults(before))
        .as(rm.stdout() + rm.stderr())
        .anySatisfy(r -> assertThat(r).contains("refused by the Companion4J policy"));
  }

  /** Gemini CLI's folder trust as it is by default: the test harness's blanket trust removed. */
  private static HeadlessCli.Result run(
      List<String> command, HeadlessCli cli, Map<String, String> env) throws Exception {
    Path out = Files.createTempFile(cli.state, "stdout", ".txt");
    Path err = Files.createTempFile(cli.state, "stderr", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(cli.env.workspace().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(WAIT.toSeconds() + 60, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", command)
              + " did not return:\n"
              + Files.readString(out)
              + Files.readString(err));
    }
    return new HeadlessCli.Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static String listing(Path dir) {
    if (!Files.isDirectory(dir)) {
      return "";
    }
    try (Stream<Path> files = Files.list(dir)) {
      return String.join(" ", files.map(f -> f.getFileName().toString()).toList());
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      n++;
    }
    return n;
  }
}
