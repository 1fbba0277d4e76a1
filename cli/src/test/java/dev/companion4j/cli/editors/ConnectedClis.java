package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Where every editor plugin's test starts: {@code companion4j serve} in a private home, with the
 * real Qwen Code and Gemini CLI IdeClients connected to it.
 */
record ConnectedClis(
    CliEnvironment env, CompanionProcess companion, CliDriver qwen, CliDriver gemini)
    implements AutoCloseable {

  static ConnectedClis start(CliEnvironment env) {
    CompanionProcess companion = CompanionProcess.start(env);
    CliDriver qwen = null;
    try {
      qwen = connected(Cli.QWEN, env);
      return new ConnectedClis(env, companion, qwen, connected(Cli.GEMINI, env));
    } catch (RuntimeException | AssertionError e) {
      if (qwen != null) {
        qwen.close();
      }
      close(companion);
      throw e;
    }
  }

  private static CliDriver connected(Cli which, CliEnvironment env) {
    CliDriver cli = CliDriver.start(which, env.workspace(), env.variables());
    assertThat(cli.connect().path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    return cli;
  }

  List<CliDriver> both() {
    return List.of(qwen, gemini);
  }

  /** The variables of the editor's terminal: the CLIs' own, and a terminal type with colours. */
  Map<String, String> terminalVariables() {
    return terminalVariables(env);
  }

  /** The variables of a terminal in {@code env}, for an editor or a CLI's TUI; a map to add to. */
  static Map<String, String> terminalVariables(CliEnvironment env) {
    Map<String, String> vars = new LinkedHashMap<>(env.variables());
    vars.put("TERM", "xterm-256color");
    vars.put("LANG", "C.UTF-8");
    return vars;
  }

  @Override
  public void close() {
    qwen.close();
    gemini.close();
    close(companion);
  }

  private static void close(CompanionProcess companion) {
    try {
      companion.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits up to {@code wait} until {@code file} is the active file of both CLIs' context. */
  void awaitActiveFile(Path file, Duration wait) {
    for (CliDriver cli : both()) {
      cli.awaitContext(c -> active(c).path("path").asString("").equals(file.toString()), wait);
    }
  }

  /** The active file of a context as a CLI stores it, or a missing node. */
  static JsonNode active(JsonNode context) {
    for (JsonNode f : context.path("workspaceState").path("openFiles")) {
      if (f.path("isActive").asBoolean()) {
        return f;
      }
    }
    return context.path("missing");
  }

  static boolean cursor(JsonNode context, int line, int character) {
    JsonNode c = active(context).path("cursor");
    return c.path("line").asInt() == line && c.path("character").asInt() == character;
  }

  /**
   * Keeps the terminal's screen, colours included, in {@code cli/target/screens/NAME.ansi} for the
   * plugins' README: {@code scripts/screenshot-terminal.sh} renders it.
   */
  static void screenshot(Tmux terminal, String name) throws IOException {
    Path dir = TestPeers.repoRoot().resolve("cli/target/screens");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve(name + ".ansi"), terminal.colouredScreen(), StandardCharsets.UTF_8);
  }

  /**
   * Checks that a {@code companion4j attach} for this workspace follows the companion, as the
   * editor plugins run it, and that no process on the machine has the token in its arguments.
   */
  void assertAttachFollowsTheCompanionWithTheTokenInNoArguments() throws IOException {
    assertThat(processArguments())
        .as("the attach following the companion runs")
        .anyMatch(a -> a.endsWith(" attach --workspace " + env.workspace()))
        .noneMatch(a -> a.contains(companion.token()));
  }

  /** The command lines of every process on this machine that this user may read. */
  private static List<String> processArguments() throws IOException {
    List<String> all = new ArrayList<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          all.add(
              new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                  .replace('\0', ' ')
                  .strip());
        } catch (IOException gone) {
          // The process ended meanwhile.
        }
      }
    }
    return all;
  }
}
