package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The real CLIs' IdeClients (Qwen Code 0.24.4, Gemini CLI 0.61.0) reach {@code companion4j serve}
 * through {@code companion4j bridge}, which each CLI starts itself as its stdio IDE server. Each
 * CLI runs in a folder the companion does not serve, {@code container/workspaces/app}, which {@code
 * --map} puts onto the companion's workspace, as a CLI in a container sees a mounted workspace; the
 * CLI has discovery places of its own, where it finds nothing of the companion's. Then the bridge
 * alone, spoken to line by line: bad input, refusals, its ends.
 */
class BridgeIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String TOKEN_LIKE = "[0-9a-f]{32,}";

  @TempDir Path temp;
  private CliEnvironment env;
  private CompanionProcess companion;
  private CliDriver cli;
  private BridgeProcess bridge;
  private Path cliSide;

  /** How a CLI learns to start the bridge. */
  enum Route {
    /** {@code *_IDE_SERVER_STDIO_COMMAND}/{@code _ARGS} and {@code *_IDE_WORKSPACE_PATH}. */
    VARIABLES,
    /**
     * The CLI's own discovery file with a {@code stdio} entry, {@code ideInfo} and a live {@code
     * ppid}; no port, no token.
     */
    DISCOVERY_FILE
  }

  static Stream<Arguments> routes() {
    return Arrays.stream(Cli.values())
        .flatMap(cli -> Arrays.stream(Route.values()).map(route -> Arguments.of(cli, route)));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (cli != null) {
      cli.close();
    }
    if (bridge != null) {
      bridge.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  /** A companion on the workspace, and the CLI's folder that maps onto it. */
  private void startCompanion() throws IOException {
    env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    cliSide = Files.createDirectories(temp.resolve("container/workspaces/app"));
  }

  /**
   * The CLI's environment for {@code route}. It shares HOME with the companion, so the bridge,
   * which the CLIs start with HOME, PATH and little else, finds the companion's lock; its own
   * QWEN_HOME and TMPDIR hold nothing of the companion's.
   */
  private Map<String, String> cliVariables(Cli which, Route route) throws IOException {
    Path cliQwenHome = temp.resolve("container/qwen");
    Path cliTmp = Files.createDirectories(temp.resolve("container/tmp"));
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put("QWEN_HOME", cliQwenHome.toString());
    vars.put("TMPDIR", cliTmp.toString());
    List<String> command =
        CompanionProcess.command("bridge", "--map", cliSide + "=" + env.workspace());
    List<String> args = command.subList(1, command.size());
    if (route == Route.VARIABLES) {
      String prefix = which == Cli.QWEN ? "QWEN_CODE" : "GEMINI_CLI";
      vars.put(prefix + "_IDE_SERVER_STDIO_COMMAND", command.get(0));
      vars.put(prefix + "_IDE_SERVER_STDIO_ARGS", CompanionProcess.JSON.writeValueAsString(args));
      vars.put(prefix + "_IDE_WORKSPACE_PATH", cliSide.toString());
      return vars;
    }
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("workspacePath", cliSide.toString());
    file.put("stdio", Map.of("command", command.get(0), "args", args));
    file.put("ideInfo", Map.of("name", "companion4j", "displayName", "Companion4J via bridge"));
    // Qwen Code deletes a lock whose ppid is not a live process.
    file.put("ppid", ProcessHandle.current().pid());
    long pid = ProcessHandle.current().pid();
    Path place =
        which == Cli.QWEN
            ? cliQwenHome.resolve("ide").resolve(pid + ".lock")
            : cliTmp.resolve("gemini/ide/gemini-ide-server-" + pid + "-1.json");
    Files.createDirectories(place.getParent());
    Files.writeString(place, CompanionProcess.JSON.writeValueAsString(file));
    return vars;
  }

  /**
   * The CLI in its folder, connected through the bridge. With the variables alone both CLIs detect
   * an IDE only if they believe they run in VS Code's terminal.
   */
  private JsonNode connect(Cli which, Route route) throws IOException {
    startCompanion();
    Map<String, String> vars = cliVariables(which, route);
    if (route == Route.VARIABLES) {
      vars.put("TERM_PROGRAM", "vscode");
    }
    cli = CliDriver.start(which, cliSide, vars);
    JsonNode status = cli.connect();
    assertThat(status.path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    return status;
  }

  // ---- the real CLIs through the bridge
  // ----------------------------------------------------------

  @ParameterizedTest
  @MethodSource("routes")
  void connectsWithDiffingAndIsNamedAfterTheCliThatStartedTheBridge(Cli which, Route route)
      throws Exception {
    JsonNode status = connect(which, route);

    assertThat(status.path("diffingEnabled").asBoolean()).isTrue();
    // With the variables alone the CLIs take the terminal for a VS Code fork's, which they call
    // "IDE".
    assertThat(status.path("ideDisplayName").asString())
        .isEqualTo(route == Route.DISCOVERY_FILE ? "Companion4J via bridge" : "IDE");
    // Both CLIs call themselves stdio-client; the bridge names the program that started it, here
    // the test's IdeClient driver, as the companion names a CLI whose process it sees.
    JsonNode client =
        await().atMost(WAIT).until(() -> Review.clients(companion), c -> c.size() == 1).get(0);
    assertThat(client.path("name").asString()).isEqualTo("companion4j-test-peers");
    assertThat(client.path("label").asString())
        .startsWith("companion4j-test-peers (")
        .contains("pid ");
  }

  @ParameterizedTest
  @MethodSource("routes")
  void theContextArrivesWithTheClisPaths(Cli which, Route route) throws Exception {
    connect(which, route);
    Path older = env.file("older.txt", "one\n");
    Path main = env.file("src/Main.java", "class Main {}\n");

    companion.event(Map.of("type", "focus", "path", older.toString()));
    companion.event(Map.of("type", "cursor", "path", main.toString(), "line", 3, "character", 7));
    companion.event(Map.of("type", "selection", "path", main.toString(), "text", "class Main"));

    JsonNode files =
        cli.awaitContext(
                c ->
                    c.path("workspaceState").path("openFiles").size() == 2
                        && c.path("workspaceState").path("openFiles").get(0).has("selectedText"),
                WAIT)
            .path("workspaceState")
            .path("openFiles");
    assertThat(files.get(0).path("path").asString())
        .isEqualTo(cliSide.resolve("src/Main.java").toString());
    assertThat(files.get(0).path("cursor").path("line").asInt()).isEqualTo(3);
    assertThat(files.get(0).path("selectedText").asString()).isEqualTo("class Main");
    assertThat(files.get(1).path("path").asString())
        .isEqualTo(cliSide.resolve("older.txt").toString());
  }

  @ParameterizedTest
  @MethodSource("routes")
  void aProposalUnderTheClisPathIsReviewedAtTheCompanionsAndAcceptedWithTheEdits(
      Cli which, Route route) throws Exception {
    connect(which, route);
    Path file = env.file("hello.txt", "hello\n");

    CompletableFuture<JsonNode> outcome =
        cli.send(
            "openDiff",
            Map.of(
                "filePath",
                cliSide.resolve("hello.txt").toString(),
                "newContent",
                "hello, world\n"));
    JsonNode pending = Review.awaitPendingDiff(companion, file, "hello, world\n", WAIT);
    assertThat(pending.path("originalContent").asString()).isEqualTo("hello\n");
    assertThat(
            Review.accept(companion, pending.path("id").asString(), "hello, edited\n").statusCode())
        .isEqualTo(204);

    JsonNode answer = CliDriver.await(outcome, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString()).isEqualTo("hello, edited\n");
  }

  @ParameterizedTest
  @MethodSource("routes")
  void aRejectionReachesTheCliUnderItsPath(Cli which, Route route) throws Exception {
    connect(which, route);
    Path file = env.file("new/Created.java", "");

    CompletableFuture<JsonNode> outcome =
        cli.send(
            "openDiff",
            Map.of(
                "filePath",
                cliSide.resolve("new/Created.java").toString(),
                "newContent",
                "class Created {}\n"));
    String id =
        Review.awaitPendingDiff(companion, file, "class Created {}\n", WAIT).path("id").asString();
    assertThat(Review.reject(companion, id).statusCode()).isEqualTo(204);

    JsonNode answer = CliDriver.await(outcome, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("rejected");
  }

  @ParameterizedTest
  @MethodSource("routes")
  void closeDiffByTheClisPathEndsTheReviewAndReturnsTheProposal(Cli which, Route route)
      throws Exception {
    connect(which, route);
    Path file = env.file("notes.md", "# old\n");
    String cliPath = cliSide.resolve("notes.md").toString();

    cli.send("openDiff", Map.of("filePath", cliPath, "newContent", "# new\n"));
    String id = Review.awaitPendingDiff(companion, file, "# new\n", WAIT).path("id").asString();
    JsonNode closed =
        cli.call("closeDiff", Map.of("filePath", cliPath, "suppressNotification", true));

    assertThat(closed.path("content").asString()).isEqualTo("# new\n");
    assertThat(Review.pendingDiffs(companion)).isEmpty();
    HttpResponse<String> late = Review.accept(companion, id, null);
    assertThat(late.statusCode()).as(late.body()).isEqualTo(409);
    assertThat(late.body()).contains("\"outcome\":\"closedByClient\"");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void aRefusedProposalNamesTheClisPath(Cli which) throws Exception {
    connect(which, Route.DISCOVERY_FILE);
    Files.createDirectories(env.workspace().resolve("folder"));

    JsonNode answer =
        CliDriver.await(
            cli.send(
                "openDiff",
                Map.of("filePath", cliSide.resolve("folder").toString(), "newContent", "x")),
            WAIT);

    assertThat(answer.path("ok").asBoolean()).as(answer.toString()).isFalse();
    assertThat(answer.path("error").asString())
        .isEqualTo("filePath names a directory, not a file: " + cliSide.resolve("folder"));
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void whenTheCompanionGoesAwayTheCliSeesItsIdeServerEnd(Cli which) throws Exception {
    connect(which, Route.DISCOVERY_FILE);
    int port = companion.port();

    companion.kill();

    await("the CLI hears its IDE server ended")
        .atMost(WAIT)
        .until(() -> cli.call("status").path("status").asString(), "disconnected"::equals);
    assertThat(cli.stderr().lines().filter(l -> l.startsWith("companion4j bridge: ")))
        .singleElement()
        .asString()
        .contains("the companion on port " + port);
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void theVariablesAloneConnectOnlyWhereTheCliBelievesItRunsInVsCode(Cli which) throws Exception {
    startCompanion();
    cli = CliDriver.start(which, cliSide, cliVariables(which, Route.VARIABLES));

    JsonNode status = cli.connect();

    assertThat(status.path("status").asString()).isEqualTo("disconnected");
    assertThat(status.path("ideDisplayName").isNull()).as("no IDE detected: %s", status).isTrue();
    assertThat(Review.clients(companion)).isEmpty();
  }

  // ---- the bridge alone
  // --------------------------------------------------------------------------

  @Test
  void aLineThatIsNoJsonRpcMessageGetsAnErrorAndServingGoesOn() throws Exception {
    startCompanion();
    bridge = BridgeProcess.start(env.variables(), temp, "--workspace", env.workspace().toString());

    bridge.send("not json");
    bridge.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"} and more");
    bridge.send("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
    bridge.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}");
    bridge.send("{\"jsonrpc\":\"1.0\",\"id\":\"x\",\"method\":\"ping\"}");
    bridge.send("{\"jsonrpc\":\"2.0\",\"id\":{\"no\":1},\"method\":\"ping\"}");
    JsonNode initialized = bridge.handshake();

    assertThat(initialized.path("result").path("serverInfo").path("name").asString())
        .isEqualTo("companion4j");
    assertThat(bridge.answers("null"))
        .extracting(m -> m.path("error").path("code").asInt())
        .containsExactly(-32700, -32700, -32600, -32600);
    assertThat(bridge.answer("7").path("error").path("message").asString())
        .isEqualTo("Invalid Request: method must be a string");
    assertThat(bridge.answer("\"x\"").path("error").path("message").asString())
        .isEqualTo("Invalid Request: jsonrpc must be \"2.0\"");
    bridge.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
    assertThat(bridge.answer("3").path("result").path("tools"))
        .extracting(t -> t.path("name").asString())
        .containsExactlyInAnyOrder("openDiff", "closeDiff");
    assertThat(bridge.messages()).filteredOn(m -> !m.has("method")).hasSize(8);
    assertThat(bridge.notJson()).isEmpty();
  }

  @Test
  void aRequestTheCompanionRefusesIsAnsweredWithItsReasonOnceAndServingGoesOn() throws Exception {
    startCompanion();
    bridge = BridgeProcess.start(env.variables(), temp, "--workspace", env.workspace().toString());

    bridge.send("{\"jsonrpc\":\"2.0\",\"id\":\"early\",\"method\":\"tools/list\"}");
    JsonNode refused = bridge.answer("\"early\"");
    bridge.handshake();

    assertThat(refused.path("error").path("code").asInt()).isEqualTo(-32600);
    assertThat(refused.path("error").path("message").asString())
        .isEqualTo("Invalid Request: the mcp-session-id header is required after initialize");
    assertThat(bridge.answers("\"early\"")).hasSize(1);
    assertThat(bridge.isAlive()).isTrue();
  }

  @Test
  void theEndOfStdinEndsTheSessionWithAGoodbyeAndTheBridgeExitsZero() throws Exception {
    startCompanion();
    bridge = BridgeProcess.start(env.variables(), temp, "--workspace", env.workspace().toString());
    bridge.handshake();
    await().atMost(WAIT).until(() -> companion.stderr().contains("Notification stream opened"));

    bridge.closeStdin();

    assertThat(bridge.awaitExit()).isEqualTo(0);
    await()
        .atMost(WAIT)
        .until(() -> companion.stderr().contains("CLI raw-client left: it ended its session"));
    assertThat(Review.clients(companion)).isEmpty();
    assertThat(bridge.stderr()).isEmpty();
  }

  @Test
  void aSigtermAsGeminiCliSendsEndsTheSessionWithAGoodbyeToo() throws Exception {
    startCompanion();
    bridge = BridgeProcess.start(env.variables(), temp, "--workspace", env.workspace().toString());
    bridge.handshake();
    await().atMost(WAIT).until(() -> companion.stderr().contains("Notification stream opened"));

    bridge.terminate();

    assertThat(bridge.awaitExit()).isEqualTo(143);
    await()
        .atMost(WAIT)
        .until(() -> companion.stderr().contains("CLI raw-client left: it ended its session"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"--port", "--workspace", "--address", "default"})
  void findsTheCompanionByPortWorkspaceOrAddressAndTokenFile(String selector) throws Exception {
    startCompanion();
    Path tokenFile = tokenFile(companion.token());
    String[] args =
        switch (selector) {
          case "--port" -> new String[] {"--port", Integer.toString(companion.port())};
          case "--workspace" ->
              new String[] {"--workspace", env.workspace().resolve("src").toString()};
          case "--address" ->
              new String[] {
                "--address", "127.0.0.1:" + companion.port(), "--token-file", tokenFile.toString()
              };
          default -> new String[] {"--map", "/container/app=" + env.workspace()};
        };
    bridge = BridgeProcess.start(env.variables(), temp, args);

    assertThat(bridge.handshake().path("result").path("serverInfo").path("name").asString())
        .as(bridge.stderr())
        .isEqualTo("companion4j");
    await().atMost(WAIT).until(() -> Review.clients(companion).size() == 1);
  }

  @Test
  void aCompanionThatCannotBeReachedIsNamedInOneLineAndTheHandshakeGetsAnError() throws Exception {
    startCompanion();
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    bridge =
        BridgeProcess.start(
            env.variables(),
            temp,
            "--address",
            "127.0.0.1:" + closedPort,
            "--token-file",
            tokenFile(companion.token()).toString());

    bridge.send(BridgeProcess.INITIALIZE);

    String line = "cannot reach the companion at 127.0.0.1:" + closedPort + ": connection refused";
    assertThat(bridge.answer("1").path("error").path("message").asString()).isEqualTo(line);
    assertThat(bridge.awaitExit()).isEqualTo(1);
    assertThat(bridge.stderr()).isEqualTo("companion4j bridge: " + line + "\n");
  }

  @Test
  void aWrongTokenIsRefusedAtTheHandshakeAndTheTokenIsNeverShown() throws Exception {
    startCompanion();
    String wrong = "0".repeat(64);
    bridge =
        BridgeProcess.start(
            env.variables(),
            temp,
            "--address",
            "127.0.0.1:" + companion.port(),
            "--token-file",
            tokenFile(wrong).toString());

    bridge.send(BridgeProcess.INITIALIZE);

    assertThat(bridge.answer("1").path("error").path("code").asInt()).isEqualTo(-32600);
    assertThat(bridge.awaitExit()).isEqualTo(1);
    assertThat(bridge.stderr())
        .startsWith(
            "companion4j bridge: the companion at 127.0.0.1:"
                + companion.port()
                + " refused the handshake (HTTP 401")
        .hasLineCount(1)
        .doesNotContainPattern(TOKEN_LIKE);
  }

  @Test
  void noCompanionServingTheWorkspaceEndsTheBridgeAtOnceInOneLine() throws Exception {
    startCompanion();
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    bridge = BridgeProcess.start(env.variables(), temp, "--workspace", elsewhere.toString());

    assertThat(bridge.awaitExit()).isEqualTo(1);
    assertThat(bridge.stderr())
        .startsWith(
            "companion4j bridge: no running companion of yours serves "
                + elsewhere
                + " (looked in ")
        .hasLineCount(1);
    assertThat(bridge.messages()).isEmpty();
  }

  @Test
  void theCommandsHelpListsTheBridgeAndItsOwnHelpItsOptions() throws Exception {
    Map<String, String> vars = CliEnvironment.in(temp).variables();

    JarCommand all = JarCommand.run(vars, temp, temp, "--help");
    JarCommand own = JarCommand.run(vars, temp, temp, "bridge", "--help");

    assertThat(all.stdout())
        .containsPattern("(?m)^\\s+bridge\\s+Relays a CLI's IDE connection over stdio");
    assertThat(own.exitCode()).isZero();
    assertThat(own.stdout())
        .startsWith("Usage: companion4j bridge [-hV] [--map=CLI_PATH=COMPANION_PATH]...")
        .contains("--workspace=DIR | --port=PORT | [--address=HOST:PORT", "--token-file=FILE]]");
  }

  private Path tokenFile(String token) throws IOException {
    Path file = temp.resolve("token-" + System.nanoTime());
    Files.writeString(file, token + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }
}
