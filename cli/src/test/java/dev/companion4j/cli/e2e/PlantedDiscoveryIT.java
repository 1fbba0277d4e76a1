package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.BufferedReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Another local user got to the shared discovery directories first: the real command still starts,
 * writes what it safely can, and the real CLIs connect and follow the editor.
 */
class PlantedDiscoveryIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path temp;
  private CompanionProcess companion;
  private final List<CliDriver> clis = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    clis.forEach(CliDriver::close);
    if (companion != null) {
      companion.close();
    }
  }

  @Test
  void servesBothClisPastFifosAndLinksToDevZeroUnderEveryDiscoveryName() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    DiscoveryLocations where = DiscoveryLocations.fromEnvironment(env.variables());
    List<Path> fifos = new ArrayList<>();
    // Every legacy name a process id can take, so the companion's own is among them.
    List<Long> plantedPids = legacyPidsToPlant();
    for (long pid : plantedPids) {
      Path legacy = legacyFile(where, pid);
      if (pid % 2 == 0) {
        fifos.add(legacy);
      } else {
        Planted.devZero(legacy);
      }
    }
    List<Path> cliScanned = new ArrayList<>();
    for (Path dir : List.of(where.qwenLockDir(), where.qwenSpecDir(), where.geminiDir())) {
      Files.createDirectories(dir);
      String[] names =
          dir.equals(where.qwenLockDir())
              ? new String[] {"1.lock", "2.lock"}
              : dir.equals(where.qwenSpecDir())
                  ? new String[] {"qwen-code-ide-server-1-1.json", "qwen-code-ide-server-2-2.json"}
                  : new String[] {"gemini-ide-server-1-1.json", "gemini-ide-server-2-2.json"};
      fifos.add(dir.resolve(names[0]));
      Planted.devZero(dir.resolve(names[1]));
      if (!dir.equals(where.qwenSpecDir())) {
        cliScanned.add(dir.resolve(names[0]));
        cliScanned.add(dir.resolve(names[1]));
      }
    }
    Planted.fifos(fifos);

    companion = CompanionProcess.start(env);

    JarCommand status = JarCommand.run(env.variables(), env.workspace(), temp, "status");
    assertThat(status.exitCode()).as(status.stderr()).isZero();
    assertThat(status.stdout()).contains(companion.port() + " ").contains("alive");
    assertThat(plantedPids)
        .as("the companion's own legacy name was planted")
        .contains(companion.pid());
    Path ownLegacy = legacyFile(where, companion.pid());
    assertThat(Files.exists(ownLegacy, LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(Files.isRegularFile(ownLegacy, LinkOption.NOFOLLOW_LINKS))
        .as("left to its planter")
        .isFalse();
    assertThat(companion.qwenLockFile()).isRegularFile();
    assertThat(companion.geminiFile()).isRegularFile();

    // The CLIs' own scans open every matching name unchecked (Gemini CLI every file in its
    // directory, Qwen Code every lock): the plants would hang them, not the companion.
    for (Path p : cliScanned) {
      Files.delete(p);
    }
    for (Cli which : Cli.values()) {
      assertGetsTheActiveFile(which, env);
    }
  }

  @Test
  void refusesDirectoriesOfAnotherUserAndServesQwenCodeFromItsLock() throws Exception {
    Planted.assumeRoot();
    CliEnvironment env = CliEnvironment.in(temp);
    DiscoveryLocations where = DiscoveryLocations.fromEnvironment(env.variables());
    Path gemini =
        Planted.giveToNobody(
            Planted.chmod("777", Files.createDirectories(where.tmpDir().resolve("gemini"))));
    Path geminiIde =
        Planted.giveToNobody(Planted.chmod("777", Files.createDirectory(where.geminiDir())));
    Path elsewhere =
        Planted.giveToNobody(
            Planted.chmod("777", Files.createDirectories(temp.resolve("elsewhere"))));
    Path qwen =
        Planted.giveToNobody(Files.createSymbolicLink(where.tmpDir().resolve("qwen"), elsewhere));

    companion = CompanionProcess.start(env);

    assertThat(companion.qwenLockFile()).isRegularFile();
    assertThat(geminiIde).isEmptyDirectory();
    assertThat(elsewhere).isEmptyDirectory();
    awaitOneLogLineNaming(gemini);
    awaitOneLogLineNaming(qwen);
    JarCommand status = JarCommand.run(env.variables(), env.workspace(), temp, "status");
    assertThat(status.stdout()).contains(companion.port() + " ").contains("alive");
    assertGetsTheActiveFile(Cli.QWEN, env);
  }

  @Test
  void refusesALockDirectoryWritableByOthersAndServesGeminiCli() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path lockDir = Planted.chmod("777", Files.createDirectories(env.qwenHome().resolve("ide")));

    companion = CompanionProcess.start(env);

    assertThat(lockDir).isEmptyDirectory();
    assertThat(companion.geminiFile()).isRegularFile();
    awaitOneLogLineNaming(lockDir);
    assertGetsTheActiveFile(Cli.GEMINI, env);
  }

  private void assertGetsTheActiveFile(Cli which, CliEnvironment env) throws Exception {
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put(which.portVariable(), Integer.toString(companion.port()));
    CliDriver cli = CliDriver.start(which, env.workspace(), vars);
    clis.add(cli);
    JsonNode connected = cli.connect();
    assertThat(connected.path("status").asString())
        .as(which + ": " + cli.stderr())
        .isEqualTo("connected");
    Path file = env.file(which + "/Active.java", "class Active {}\n");

    focus(file);

    JsonNode context =
        cli.awaitContext(
            c ->
                file.toString()
                    .equals(
                        c.path("workspaceState")
                            .path("openFiles")
                            .path(0)
                            .path("path")
                            .asString(null)),
            WAIT);
    assertThat(
            context.path("workspaceState").path("openFiles").path(0).path("isActive").asBoolean())
        .isTrue();
  }

  /**
   * Through the editor API, with the token from whichever of the owner-only files was written (the
   * test helper reads only the Qwen Code lock).
   */
  private void focus(Path file) throws Exception {
    Path written =
        Files.exists(companion.qwenLockFile()) ? companion.qwenLockFile() : companion.geminiFile();
    String token =
        CompanionProcess.JSON.readTree(Files.readString(written)).path("authToken").asString();
    HttpResponse<String> r =
        companion.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + companion.port() + "/editor/events"))
                .timeout(WAIT)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        CompanionProcess.JSON.writeValueAsString(
                            Map.of("type", "focus", "path", file.toString())))));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
  }

  private void awaitOneLogLineNaming(Path refused) {
    await().atMost(WAIT).until(() -> linesNaming(refused) > 0);
    assertThat(linesNaming(refused)).as(companion.stderr()).isEqualTo(1);
  }

  private long linesNaming(Path path) {
    String name = path + " ";
    return companion.stderr().lines().filter(l -> l.contains(name)).count();
  }

  private static Path legacyFile(DiscoveryLocations where, long pid) {
    return where.tmpDir().resolve("qwen-code-ide-server-" + pid + ".json");
  }

  /**
   * All of them where there are few (32768 by default on Linux), else the next ones to be handed
   * out.
   */
  private static List<Long> legacyPidsToPlant() throws Exception {
    long max;
    // In one read: a sysctl file read from a non-zero offset (as Files.readString does) looks
    // empty.
    try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/sys/kernel/pid_max"))) {
      max = Long.parseLong(in.readLine().trim());
    }
    Process probe = new ProcessBuilder("true").start();
    probe.waitFor();
    long from = max <= 65_536 ? 1 : probe.pid() + 1;
    long to = max <= 65_536 ? max : Math.min(max, probe.pid() + 30_000);
    return Stream.iterate(from, p -> p <= to, p -> p + 1).toList();
  }
}
