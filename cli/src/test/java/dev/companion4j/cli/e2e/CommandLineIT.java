package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.discovery.DiscoveryFiles;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryTarget;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a new user types first, from the shaded jar: version, help, status, open, a missing CLI, the
 * MCP server.
 */
class CommandLineIT {
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("serve"),
          List.of("run"),
          List.of("open"),
          List.of("status"),
          List.of("chat"),
          List.of("extension"),
          List.of("extension", "install"),
          List.of("mcp"),
          List.of("selftest"));

  /** Only stops a deaf or hung server from hanging the build; nothing here measures speed. */
  private static final Duration ANSWER_BOUND = Duration.ofSeconds(20);

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
      assertThat(run.stderr().strip().lines())
          .singleElement()
          .asString()
          .startsWith("companion4j: cannot run " + cli + ": not found on PATH; install ")
          .contains(
              "npm install -g @"
                  + (cli.equals("qwen") ? "qwen-code/qwen-code" : "google/gemini-cli"));
      assertThat(run.stdout()).doesNotContainIgnoringCase("usage");
    }
  }

  @Test
  void runAtATerminalNamesThePageAndHowToFindItAgainOnceTheClisScreenCoversIt() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    List<String> command =
        CompanionProcess.command("run", "--", "sh", "-c", "echo cli started; exec sleep 60");
    try (Tmux terminal = Tmux.start(command, env.workspace(), env.variables())) {
      // The line follows the CLI's start, so the CLI's first output may come before it.
      String line =
          await()
              .atMost(ANSWER_BOUND)
              .until(
                  () ->
                      terminal.screen().contains("cli started")
                          ? terminal
                              .screen()
                              .lines()
                              .filter(l -> l.startsWith("Review page: "))
                              .findFirst()
                              .orElse(null)
                          : null,
                  Objects::nonNull);
      assertThat(line).contains("/review/#token=");
      assertThat(terminal.screen())
          .contains("To open the page again: `companion4j open` in this folder");

      // What the line says works from another terminal in the folder, and from the CLI's shell
      // escape.
      JarCommand open = JarCommand.run(env.variables(), env.workspace(), temp, "open", "--print");
      assertThat(open.stdout().strip()).isEqualTo(line.substring("Review page: ".length()).strip());
    }
  }

  @Test
  void statusShowsOneRowPerCompanionWithItsPageAndItsClisAndTheTokenOnlyOnRequest()
      throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (CompanionProcess companion = CompanionProcess.start(env);
        CliDriver qwen = CliDriver.start(Cli.QWEN, env.workspace(), env.variables())) {
      assertThat(qwen.connect().path("status").asString()).as(qwen.stderr()).isEqualTo("connected");

      JarCommand status = run(env.variables(), "status");
      assertThat(status.exitCode()).as(status.stderr()).isZero();
      List<String> rows =
          status.stdout().lines().filter(l -> l.startsWith(companion.port() + " ")).toList();
      assertThat(rows)
          .as("one row, though the companion wrote a file per CLI generation")
          .hasSize(1);
      assertThat(rows.get(0))
          .contains("alive", Long.toString(companion.pid()), env.workspace().toString())
          .contains("http://127.0.0.1:" + companion.port() + "/review/")
          .containsPattern("\\(pid \\d+\\)")
          .doesNotContain(companion.token());
      // The columns line up under their headings, however long the workspace's path.
      String header =
          status.stdout().lines().filter(l -> l.startsWith("PORT")).findFirst().orElseThrow();
      assertThat(rows.get(0).indexOf(env.workspace().toString()))
          .isEqualTo(header.indexOf("WORKSPACE"));
      assertThat(rows.get(0).indexOf("http://")).isEqualTo(header.indexOf("REVIEW PAGE"));
      assertThat(rows.get(0).substring(header.indexOf("CLIS") - 1))
          .matches(" [^ ].*\\(pid \\d+\\)");

      JarCommand withToken = run(env.variables(), "status", "--show-token");
      assertThat(withToken.stdout()).contains("/review/#token=" + companion.token());

      JarCommand json = run(env.variables(), "status", "--json");
      assertThat(json.stdout().lines())
          .singleElement()
          .asString()
          .contains("\"reviewPage\":\"http://127.0.0.1:" + companion.port() + "/review/\"")
          .contains("\"clients\":[\"")
          .doesNotContain(companion.token());
    }
  }

  @Test
  void openPrintsThePageOfTheCompanionServingThisFolderAndSaysWhatToDoWhenNoneDoes()
      throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path below = Files.createDirectories(env.workspace().resolve("src/deep"));
    Map<String, String> headless = new LinkedHashMap<>(env.variables());
    headless.remove("DISPLAY");
    headless.remove("WAYLAND_DISPLAY");

    JarCommand none = JarCommand.run(headless, below, temp, "open");
    assertThat(none.exitCode()).isEqualTo(1);
    assertThat(none.stderr())
        .contains("no running Companion4J review page serves " + below)
        .contains("companion4j serve");

    try (CompanionProcess companion = CompanionProcess.start(env)) {
      // Without a display there is no browser to open: the address is printed for the user.
      JarCommand open = JarCommand.run(headless, below, temp, "open");
      assertThat(open.exitCode()).as(open.stderr()).isZero();
      assertThat(open.stdout().strip())
          .isEqualTo(
              "http://127.0.0.1:" + companion.port() + "/review/#token=" + companion.token());
    }
  }

  @Test
  void statusCallsALockStaleWhenItsPidLivesButItsPortCannotProveTheToken() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Process unrelated = new ProcessBuilder("sleep", "120").start();
    // Holds the port and never answers: the connection succeeds (the backlog takes it), the proof
    // cannot.
    try (ServerSocket squatter = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // A companion that died: its pid is now an unrelated process's, its port another program's.
      new DiscoveryFiles(
              DiscoveryLocations.fromEnvironment(env.variables()),
              EnumSet.allOf(DiscoveryTarget.class),
              unrelated.pid())
          .write(
              squatter.getLocalPort(),
              env.workspace().toString(),
              "the dead companion's token",
              new IdeInfo("vim", "Vim"));

      JarCommand status = run(env.variables(), "status");
      assertThat(status.exitCode()).as(status.stderr()).isZero();
      assertThat(status.stdout().lines().filter(l -> l.startsWith(squatter.getLocalPort() + " ")))
          .singleElement()
          .asString()
          .contains("stale")
          .contains(Long.toString(unrelated.pid()));
    } finally {
      unrelated.destroy();
    }
  }

  @Test
  void mcpAnswersEachBadLineWithAnErrorServesOnAndExitsWhenItsInputCloses() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(CompanionProcess.command("mcp"))
            .directory(temp.toFile())
            .redirectError(temp.resolve("mcp.err").toFile());
    pb.environment().clear();
    pb.environment().putAll(CliEnvironment.in(temp).variables());
    Process mcp = pb.start();
    // Not closed here: a read still waiting on a deaf server holds the reader's lock; the process's
    // end frees it.
    BufferedReader answers =
        new BufferedReader(new InputStreamReader(mcp.getInputStream(), StandardCharsets.UTF_8));
    try {
      OutputStream requests = mcp.getOutputStream();
      assertThat(
              exchange(
                      requests,
                      answers,
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                          + "{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")
                  .path("result")
                  .path("serverInfo")
                  .path("name")
                  .asString())
          .isEqualTo("companion4j");
      send(requests, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

      parseError(exchange(requests, answers, "this is not JSON"), "not one JSON value");
      String deep = "[".repeat(501) + "]".repeat(501);
      parseError(
          exchange(
              requests,
              answers,
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                  + "{\"name\":\"ide_status\",\"arguments\":{\"extra\":"
                  + deep
                  + "}}}"),
          "nested too deeply");
      parseError(
          exchange(
              requests,
              answers,
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"pad\":\""
                  + "x".repeat(2 << 20)
                  + "\"}}"),
          "longer than");
      JsonNode notAnObject =
          exchange(
              requests,
              answers,
              "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"open_file\",\"arguments\":5}}");
      assertThat(notAnObject.path("id").asInt()).isEqualTo(4);
      assertThat(notAnObject.path("error").path("code").asInt()).isEqualTo(-32602);
      assertThat(notAnObject.path("error").path("message").asString())
          .contains("\"arguments\" must be an object")
          .doesNotContainIgnoringCase("jackson")
          .doesNotContain("Exception");
      JsonNode wrongTypes =
          exchange(
              requests,
              answers,
              "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
                  + "{\"name\":\"open_file\",\"arguments\":{\"path\":[\"A.java\"],\"line\":{\"a\":1}}}}");
      assertThat(wrongTypes.path("result").path("isError").asBoolean()).isTrue();
      assertThat(wrongTypes.path("result").path("content").path(0).path("text").asString())
          .startsWith("\"path\" must be a string")
          .contains("Call it as: open_file {\"path\": \"src/Main.java\"")
          .doesNotContainIgnoringCase("schema")
          .doesNotContainIgnoringCase("jackson");

      JsonNode tools =
          exchange(requests, answers, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}");
      assertThat(tools.path("id").asInt()).isEqualTo(6);
      assertThat(tools.path("result").path("tools").path(0).path("name").asString())
          .isEqualTo("ide_status");

      requests.close();
      assertThat(mcp.waitFor(ANSWER_BOUND.toSeconds(), TimeUnit.SECONDS))
          .as("exits when its input closes")
          .isTrue();
      assertThat(mcp.exitValue()).isZero();
    } finally {
      mcp.destroyForcibly();
    }
  }

  private static void parseError(JsonNode answer, String says) {
    assertThat(answer.path("id").isNull()).as(answer.toString()).isTrue();
    assertThat(answer.path("error").path("code").asInt()).isEqualTo(-32700);
    assertThat(answer.path("error").path("message").asString()).contains(says);
  }

  /**
   * Sends one line and reads the one answer, each within a bound: a deaf server must fail the test,
   * not hang it.
   */
  private static JsonNode exchange(OutputStream requests, BufferedReader answers, String line)
      throws Exception {
    CompletableFuture.runAsync(() -> send(requests, line))
        .get(ANSWER_BOUND.toSeconds(), TimeUnit.SECONDS);
    String answer =
        CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return answers.readLine();
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                })
            .get(ANSWER_BOUND.toSeconds(), TimeUnit.SECONDS);
    assertThat(answer)
        .as("an answer to " + line.substring(0, Math.min(80, line.length())))
        .isNotNull();
    return JsonMapper.shared().readTree(answer);
  }

  private static void send(OutputStream requests, String line) {
    try {
      requests.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      requests.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JarCommand run(Map<String, String> env, String... args) throws Exception {
    return JarCommand.run(env, temp, temp, args);
  }
}
