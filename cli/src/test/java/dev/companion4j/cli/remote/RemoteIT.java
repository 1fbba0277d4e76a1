package dev.companion4j.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * IDE mode across a machine boundary, built from namespaces: the real CLIs' IdeClients run where
 * the companion's port cannot be reached (a network namespace of their own, as in a container) and
 * see the workspace at another path (a bind mount in their own mount namespace, as a container's
 * volume). {@code companion4j run --remote} announces a command that crosses back as ssh or {@code
 * docker exec} would, here {@code nsenter} into the companion's network namespace, and runs {@code
 * companion4j bridge} there, which maps the paths both ways. Where the CLI's side has no Java, the
 * same command reaches the CLIs through files written by hand, or through their variables alone, as
 * docs/remote.md describes.
 */
class RemoteIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Prints "connected" or the error's code for a TCP connection to 127.0.0.1 at the given port. */
  private static final String TCP_PROBE =
      "const s = require('net').connect(+process.argv[1], '127.0.0.1');"
          + "s.on('connect', () => { console.log('connected'); s.destroy(); });"
          + "s.on('error', e => console.log(e.code));";

  /**
   * Mounts the host's workspace ($1) at the CLI's path ($2), as a container's volume, and runs the
   * rest there.
   */
  private static final String MOUNT_AND_RUN =
      "mount --bind \"$1\" \"$2\" && cd \"$2\" && shift 2 && exec \"$@\"";

  @TempDir Path temp;
  private CliEnvironment host;
  private CliEnvironment container;
  private CompanionProcess companion;
  private NetworkNamespace namespace;
  private CliDriver cli;

  /**
   * The companion on the host, serving {@code host/app}; the CLI's side sees it at {@code
   * container/workspaces/app}.
   */
  @BeforeEach
  void startTheCompanionAndTheNamespace() throws Exception {
    host =
        CliEnvironment.sharing(
            temp.resolve("host/home"),
            temp.resolve("host/home/.qwen"),
            temp.resolve("host/tmp"),
            temp.resolve("host/app"));
    container =
        CliEnvironment.sharing(
            temp.resolve("container/home"),
            temp.resolve("container/home/.qwen"),
            temp.resolve("container/tmp"),
            temp.resolve("container/workspaces/app"));
    companion = CompanionProcess.start(host);
    namespace = NetworkNamespace.create(temp);
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (cli != null) {
        cli.close();
      }
    } finally {
      try {
        if (companion != null) {
          companion.close();
        }
      } finally {
        if (namespace != null) {
          namespace.close();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void contextAndReviewsCrossTheBoundaryWithPathsMappedBothWays(Cli which) throws Exception {
    assertThat(tcpProbe(List.of()))
        .as("the probe reaches the companion from the host")
        .isEqualTo("connected");
    assertThat(tcpProbe(namespace.inside(List.of())))
        .as("but not from the CLI's side")
        .isEqualTo("ECONNREFUSED");

    Path hostFile = host.file("hello.txt", "hello\n");
    Path cliFile = container.workspace().resolve("hello.txt");
    assertThat(cliFile)
        .as("the CLI's path exists only in the CLI's mount namespace")
        .doesNotExist();

    List<String> runRemote = CompanionProcess.command("run", "--remote", bridgeCommandLine(), "--");
    cli = startInTheNamespace(which, runRemote, container.variables());
    connectsToTheCompanionAndGetsTheContextAtItsOwnPath(hostFile, cliFile);

    // Accepted with edits: proposed at the CLI's path, reviewed at the host's, answered with the
    // edited text.
    CompletableFuture<JsonNode> accepted =
        cli.send(
            "openDiff", Map.of("filePath", cliFile.toString(), "newContent", "hello, world\n"));
    JsonNode diff = Review.awaitPendingDiff(companion, hostFile, "hello, world\n", WAIT);
    assertThat(diff.path("originalContent").asString())
        .as("read from the host's file")
        .isEqualTo("hello\n");
    assertThat(Review.accept(companion, diff.path("id").asString(), "hello, edited\n").statusCode())
        .isEqualTo(204);
    JsonNode answer = CliDriver.await(accepted, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString()).isEqualTo("hello, edited\n");
    writeAsTheCli(cliFile, answer.path("content").asString());
    assertThat(hostFile)
        .as("written at the CLI's path, seen at the host's")
        .hasContent("hello, edited\n");

    // Rejected.
    Path rejectedHostFile = host.file("src/Reject.java", "class Reject {}\n");
    Path rejectedCliFile = container.workspace().resolve("src/Reject.java");
    CompletableFuture<JsonNode> rejected =
        cli.send(
            "openDiff",
            Map.of("filePath", rejectedCliFile.toString(), "newContent", "class Rejected {}\n"));
    diff = Review.awaitPendingDiff(companion, rejectedHostFile, "class Rejected {}\n", WAIT);
    assertThat(Review.reject(companion, diff.path("id").asString()).statusCode()).isEqualTo(204);
    assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");

    // Closed by the CLI, by its own path.
    Path closedHostFile = host.file("notes.md", "# old\n");
    Path closedCliFile = container.workspace().resolve("notes.md");
    cli.send("openDiff", Map.of("filePath", closedCliFile.toString(), "newContent", "# new\n"));
    Review.awaitPendingDiff(companion, closedHostFile, "# new\n", WAIT);
    JsonNode closed =
        cli.call(
            "closeDiff",
            Map.of("filePath", closedCliFile.toString(), "suppressNotification", true));
    assertThat(closed.path("content").asString()).isEqualTo("# new\n");
    assertThat(Review.pendingDiffs(companion)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void theTwoFilesWrittenByHandServeACliSideWithoutJava(Cli which) throws Exception {
    Path hostFile = host.file("hello.txt", "hello\n");
    StdioCommand bridge = StdioCommand.parse(bridgeCommandLine());
    // As docs/remote.md writes them: no ppid, so they stay; names the CLIs' scans match.
    String json =
        CompanionProcess.JSON.writeValueAsString(
            Map.of(
                "workspacePath", container.workspace().toString(),
                "stdio", Map.of("command", bridge.command(), "args", bridge.args()),
                "ideInfo", Map.of("name", "companion4j", "displayName", "Companion4J")));
    ownerOnly(container.qwenHome().resolve("ide/70000.lock"), json);
    ownerOnly(container.tmpDir().resolve("gemini/ide/gemini-ide-server-1-70000.json"), json);

    cli = startInTheNamespace(which, List.of(), container.variables());
    connectsToTheCompanionAndGetsTheContextAtItsOwnPath(
        hostFile, container.workspace().resolve("hello.txt"));
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void theVariablesAloneServeWhenTheTerminalClaimsToBeVsCode(Cli which) throws Exception {
    Path hostFile = host.file("hello.txt", "hello\n");
    StdioCommand bridge = StdioCommand.parse(bridgeCommandLine());
    String args = CompanionProcess.JSON.writeValueAsString(bridge.args());
    Map<String, String> vars = new HashMap<>(container.variables());
    for (String cli : List.of("QWEN_CODE", "GEMINI_CLI")) {
      vars.put(cli + "_IDE_SERVER_STDIO_COMMAND", bridge.command());
      vars.put(cli + "_IDE_SERVER_STDIO_ARGS", args);
      vars.put(cli + "_IDE_WORKSPACE_PATH", container.workspace().toString());
    }
    // Without a discovery file the CLIs know no IDE by name, and go on only in "VS Code".
    vars.put("TERM_PROGRAM", "vscode");

    cli = startInTheNamespace(which, List.of(), vars);
    JsonNode status = cli.connect();
    assertThat(status.path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    companion.event(
        Map.of("type", "cursor", "path", hostFile.toString(), "line", 1, "character", 3));
    JsonNode context =
        cli.awaitContext(c -> c.path("workspaceState").path("openFiles").size() == 1, WAIT);
    assertThat(context.path("workspaceState").path("openFiles").get(0).path("path").asString())
        .isEqualTo(container.workspace().resolve("hello.txt").toString());
  }

  private void connectsToTheCompanionAndGetsTheContextAtItsOwnPath(Path hostFile, Path cliFile) {
    JsonNode status = cli.connect();
    assertThat(status.path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    assertThat(status.path("ideName").asString()).isEqualTo("companion4j");
    assertThat(status.path("ideDisplayName").asString()).isEqualTo("Companion4J");
    assertThat(status.path("diffingEnabled").asBoolean()).isTrue();
    assertThat(Review.clients(companion)).hasSize(1);

    // Context: a file the editor opens at the host's path reaches the CLI at its own.
    companion.event(
        Map.of("type", "cursor", "path", hostFile.toString(), "line", 1, "character", 3));
    JsonNode context =
        cli.awaitContext(c -> c.path("workspaceState").path("openFiles").size() == 1, WAIT);
    JsonNode active = context.path("workspaceState").path("openFiles").get(0);
    assertThat(active.path("path").asString()).isEqualTo(cliFile.toString());
    assertThat(active.path("cursor").path("character").asInt()).isEqualTo(3);
  }

  /**
   * What reaches the companion from the CLI's side, as ssh or {@code docker exec} would: {@code
   * nsenter} into the companion's network namespace, then {@code companion4j bridge}. It sets the
   * host's HOME and TMPDIR itself: the CLIs hand a stdio command only HOME, PATH and a few more of
   * their own variables, while on a host it would run with the host's.
   */
  private String bridgeCommandLine() {
    return String.join(
        " ",
        "nsenter",
        "--net=/proc/" + companion.pid() + "/ns/net",
        "--",
        "env",
        "HOME=" + host.home(),
        "QWEN_HOME=" + host.qwenHome(),
        "TMPDIR=" + host.tmpDir(),
        ProcessHandle.current().info().command().orElse("java"),
        "-jar",
        CompanionProcess.jar().toString(),
        "bridge",
        "--map",
        container.workspace() + "=" + host.workspace());
  }

  /**
   * The CLI's IdeClient, started as {@code launcher… node driver…} inside the namespace, in the
   * host's workspace mounted at the CLI's path.
   */
  private CliDriver startInTheNamespace(Cli which, List<String> launcher, Map<String, String> env) {
    List<String> prefix =
        namespace.inside(
            List.of(
                "sh",
                "-c",
                MOUNT_AND_RUN,
                "sh",
                host.workspace().toString(),
                container.workspace().toString()));
    prefix.addAll(launcher);
    return CliDriver.start(
        which, container.workspace(), env, CliDriver.Launch.pinned().through(prefix));
  }

  private static void ownerOnly(Path file, String content) throws Exception {
    Files.createDirectories(
        file.getParent(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
  }

  private String tcpProbe(List<String> prefix) throws Exception {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of("node", "-e", TCP_PROBE, Integer.toString(companion.port())));
    JarCommand probe = JarCommand.run(command, Map.of("PATH", System.getenv("PATH")), temp, temp);
    assertThat(probe.exitCode()).as(probe.stderr()).isZero();
    return probe.stdout().strip();
  }

  /**
   * Writes the accepted text at the CLI's path, in the CLI's mount namespace, as the CLI writes it.
   */
  private void writeAsTheCli(Path file, String content) throws Exception {
    long pid = cli.call("info").path("pid").asLong();
    JarCommand write =
        JarCommand.run(
            List.of(
                "nsenter",
                "--mount=/proc/" + pid + "/ns/mnt",
                "--",
                "sh",
                "-c",
                "printf %s \"$2\" > \"$1\"",
                "sh",
                file.toString(),
                content),
            Map.of("PATH", System.getenv("PATH")),
            temp,
            temp);
    assertThat(write.exitCode()).as(write.stderr()).isZero();
  }
}
