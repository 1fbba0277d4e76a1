package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.extension.generate.StagedLauncher;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shell policy's resident answerer behind the extension's real launcher ({@code bin/companion4j
 * hook … shell-policy}), as the CLIs run it: the server runs in this JVM, and a script stands in
 * for the Java a call would otherwise start, so what that script records says which of the two
 * decided.
 */
class PolicyServerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path extension;
  private Path launcher;
  private Path javaCalls;
  private final List<PolicyServer> servers = new ArrayList<>();

  @BeforeEach
  void stageTheLauncher() throws IOException {
    launcher = StagedLauncher.in(extension);
    Files.writeString(extension.resolve("lib/companion4j.jar"), "");
    javaCalls = extension.resolve("java-calls");
    // A Java that cannot decide: a call it gets is refused. It records its arguments, and a hook's
    // input.
    java(
        "echo \"$$ $*\" >> "
            + javaCalls
            + "; case \"$*\" in *policy-server*) exit 0 ;; esac; cat > "
            + extension.resolve("java-input")
            + "; exit 1");
  }

  @AfterEach
  void stopServers() {
    servers.forEach(PolicyServer::close);
  }

  private void java(String body) throws IOException {
    Path java = extension.resolve("fake-java");
    Files.writeString(java, "#!/bin/sh\n" + body + "\n");
    java.toFile().setExecutable(true);
    Files.writeString(extension.resolve("lib/java"), java + "\n");
  }

  private PolicyServer serve(Duration idle) throws Exception {
    PolicyServer server =
        PolicyServer.open(
                extension,
                Map.of("COMPANION4J_EXTENSION", extension.toString()),
                idle,
                Clock.systemUTC())
            .orElseThrow();
    reading(server);
    return server;
  }

  /** Runs {@code server} on a thread of its own, closed after the test; that thread. */
  private Thread reading(PolicyServer server) {
    servers.add(server);
    Thread reader =
        new Thread(
            () -> {
              try {
                server.run();
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            "policy-server-under-test");
    reader.setDaemon(true);
    reader.start();
    return reader;
  }

  private record Run(int exitCode, String out, String err, long pid) {}

  private Run hook(String runtime, String input) throws Exception {
    return hook(runtime, "shell-policy", input);
  }

  private Run hook(String runtime, String handler, String input) throws Exception {
    Process p = new ProcessBuilder(launcher.toString(), "hook", runtime, handler).start();
    try (var stdin = p.getOutputStream()) {
      stdin.write(input.getBytes(StandardCharsets.UTF_8));
    }
    CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p, true));
    CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p, false));
    boolean answered = p.waitFor(30, TimeUnit.SECONDS);
    if (!answered) {
      p.destroyForcibly();
    }
    assertThat(answered).as("the launcher answered").isTrue();
    return new Run(
        p.exitValue(),
        new String(out.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8),
        new String(err.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8),
        p.pid());
  }

  private static byte[] readAll(Process p, boolean out) {
    try {
      return (out ? p.getInputStream() : p.getErrorStream()).readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String command(String command) {
    return FlatJson.object(
        Map.of("hook_event_name", "PreToolUse"), "tool_input", Map.of("command", command));
  }

  private List<String> javaCalls() throws IOException {
    return Files.exists(javaCalls) ? Files.readAllLines(javaCalls) : List.of();
  }

  @ParameterizedTest
  @ValueSource(strings = {"qwen", "gemini"})
  void aRunningServerDecidesEachCallWithoutAJavaOfItsOwn(String runtime) throws Exception {
    serve(PolicyServer.IDLE);

    Run rm = hook(runtime, command("rm -rf build"));
    assertThat(rm.exitCode()).as(rm.err()).isZero();
    assertThat(rm.out())
        .contains("\"decision\":\"deny\"")
        .contains(ShellPolicy.bundled().check("rm -rf build").message());

    Run status = hook(runtime, command("git status"));
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out()).isEmpty();

    // What the server could not check is refused, in the form both CLIs block on.
    Run nothing = hook(runtime, "{\"tool_input\":{}}");
    assertThat(nothing.exitCode()).isEqualTo(2);
    assertThat(nothing.err())
        .contains(
            "The Companion4J shell policy refused this command: it could not check it",
            "names no command");

    assertThat(javaCalls()).isEmpty();
    try (var left = Files.list(extension.resolve("run"))) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("each call's files removed")
          .containsExactlyInAnyOrder("policy", "pid", "lock");
    }
  }

  @Test
  void callersAtOnceEachGetTheirOwnAnswer() throws Exception {
    serve(PolicyServer.IDLE);
    List<CompletableFuture<Run>> runs = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String command = (i % 2 == 0 ? "rm -rf dir" : "ls dir") + i;
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return hook("qwen", command(command));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    for (int i = 0; i < runs.size(); i++) {
      Run run = runs.get(i).get(60, TimeUnit.SECONDS);
      assertThat(run.exitCode()).as(run.err()).isZero();
      if (i % 2 == 0) {
        assertThat(run.out()).as("call " + i).contains("\"decision\":\"deny\"");
      } else {
        assertThat(run.out()).as("call " + i).isEmpty();
      }
    }
    assertThat(javaCalls()).isEmpty();
  }

  /**
   * No server: the call goes to Java, which gets the input whole, and a server is started for the
   * next calls, detached.
   */
  @Test
  void withoutAServerTheCallGoesToJavaWhichStartsOne() throws Exception {
    Run run = hook("qwen", command("git status"));
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("it could not check it (Java exited with 1)");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(javaCalls())
                    .anyMatch(c -> c.endsWith("HookMain qwen shell-policy"))
                    .anyMatch(c -> c.endsWith("HookMain policy-server"))
                    .anyMatch(c -> c.contains("-Xmx32m")));
  }

  /**
   * Session start answers first and then starts the answerer, so that it is up before the session's
   * first shell call; where one runs, the hook's Java takes the launcher's place, as before.
   */
  @Test
  void sessionStartStartsTheAnswererUnlessOneRuns() throws Exception {
    String start = "{\"hook_event_name\":\"SessionStart\"}";
    Run first = hook("qwen", "session-start", start);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(javaCalls())
                    .hasSize(2)
                    .satisfiesExactly(
                        c -> assertThat(c).endsWith("HookMain qwen session-start"),
                        c -> assertThat(c).endsWith("HookMain policy-server")));
    assertThat(javaCalls().get(0)).doesNotStartWith(first.pid() + " ");

    Files.delete(javaCalls);
    serve(PolicyServer.IDLE);
    Run second = hook("qwen", "session-start", start);
    assertThat(javaCalls())
        .as("the launcher's own process runs the hook, and nothing after it")
        .singleElement()
        .asString()
        .startsWith(second.pid() + " ")
        .endsWith("HookMain qwen session-start");
  }

  /**
   * A FIFO nobody reads, whether its server hangs (its pid lives) or died and left it (its pid is
   * gone, as after a reboot): the call still ends with Java's decision on the whole input.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aServerThatDoesNotAnswerLeavesTheWholeCallToJava(boolean alive) throws Exception {
    java(
        "case \"$*\" in *policy-server*) exit 0 ;; esac; cat > "
            + extension.resolve("java-input")
            + "; echo '{\"decision\":\"deny\",\"reason\":\"from Java\"}'");
    Path run = Files.createDirectories(extension.resolve("run"));
    Path fifo = mkfifo(run.resolve("policy"));
    long pid = alive ? ProcessHandle.current().pid() : deadPid();
    Files.writeString(run.resolve("pid"), pid + "\n");
    String input = command("rm -rf build");
    // Held open as a hung server would hold it: what a caller announces stays readable.
    try (RandomAccessFile hung = new RandomAccessFile(fifo.toFile(), "rw");
        FileInputStream announced = new FileInputStream(hung.getFD())) {
      Run answered = hook("qwen", input);
      assertThat(answered.exitCode()).isZero();
      assertThat(answered.out()).contains("from Java");
      assertThat(Files.readString(extension.resolve("java-input"))).isEqualTo(input);
      if (alive) {
        byte[] line = new byte[announced.available()];
        assertThat(announced.read(line)).isEqualTo(line.length);
        assertThat(new String(line, StandardCharsets.US_ASCII)).matches("[0-9]+ qwen\n");
      } else {
        assertThat(announced.available()).as("a dead server is not asked").isZero();
      }
    }
    try (var left = Files.list(run)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("the call's own files removed")
          .noneMatch(n -> n.endsWith(".in") || n.endsWith(".out"));
    }
  }

  /** Only this user's run/ is asked: one of another user's could answer anything. */
  @Test
  void aRunDirectoryOfAnotherUserIsNotAsked() throws Exception {
    assumeThat(System.getProperty("user.name")).as("chown needs root").isEqualTo("root");
    Path run = Files.createDirectories(extension.resolve("run"));
    Path fifo = mkfifo(run.resolve("policy"));
    Files.writeString(run.resolve("pid"), ProcessHandle.current().pid() + "\n");
    exec("chown", "65534", run.toString());
    try (RandomAccessFile held = new RandomAccessFile(fifo.toFile(), "rw");
        FileInputStream announced = new FileInputStream(held.getFD())) {
      Run refused = hook("qwen", command("git status"));
      assertThat(refused.err()).contains("Java exited with 1");
      assertThat(announced.available()).isZero();
      assertThat(javaCalls())
          .as("nor is a server started there")
          .singleElement()
          .asString()
          .endsWith("HookMain qwen shell-policy");
    } finally {
      exec("chown", "0", run.toString());
    }
  }

  @Test
  void anInputAboveWhatTheServerAnswersGoesWholeToJava() throws Exception {
    serve(PolicyServer.IDLE);
    String input = command("echo " + "x".repeat(PolicyServer.MAX_ANSWERED));
    Run run = hook("qwen", input);
    assertThat(run.err()).contains("Java exited with 1");
    assertThat(Files.readString(extension.resolve("java-input"))).isEqualTo(input);
  }

  /** A caller gone before it read its answer does not hold the server: the next is answered. */
  @Test
  void aCallerThatNeverReadsItsAnswerIsLetGo() throws Exception {
    serve(PolicyServer.IDLE);
    Path run = extension.resolve("run");
    long pid = ProcessHandle.current().pid();
    Files.writeString(run.resolve(pid + ".in"), command("git status"));
    Path out = mkfifo(run.resolve(pid + ".out"));
    try (RandomAccessFile requests = new RandomAccessFile(run.resolve("policy").toFile(), "rw")) {
      requests.write((pid + " qwen\n").getBytes(StandardCharsets.US_ASCII));
    }
    await().atMost(WAIT).until(() -> !Files.exists(out));
    assertThat(run.resolve(pid + ".in")).doesNotExist();
    assertThat(hook("qwen", command("rm -rf x")).out()).contains("\"decision\":\"deny\"");
  }

  @Test
  void oneServerPerExtension() throws Exception {
    serve(PolicyServer.IDLE);
    assertThat(PolicyServer.open(extension, Map.of(), PolicyServer.IDLE, Clock.systemUTC()))
        .isEmpty();
  }

  @Test
  void anIdleServerEndsAndRemovesItsFifo() throws Exception {
    Instant start = Instant.parse("2026-11-27T10:00:00Z");
    MutableClock clock = new MutableClock(start);
    PolicyServer server =
        PolicyServer.open(extension, Map.of(), Duration.ofMinutes(30), clock).orElseThrow();
    Thread reader = reading(server);
    clock.now = start.plus(Duration.ofMinutes(29));
    await().during(Duration.ofMillis(2_500)).atMost(WAIT).until(() -> !server.isClosed());
    clock.now = start.plus(Duration.ofMinutes(30));
    await().atMost(WAIT).until(server::isClosed);
    reader.join(WAIT.toMillis());
    assertThat(reader.isAlive()).as("the reader let go").isFalse();
    assertThat(extension.resolve("run/policy")).doesNotExist();
    assertThat(extension.resolve("run/pid")).doesNotExist();
    // Its lock released: another takes its place.
    assertThat(PolicyServer.open(extension, Map.of(), PolicyServer.IDLE, Clock.systemUTC()))
        .hasValueSatisfying(servers::add);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jar changed", "fifo removed", "directory opened to others"})
  void aServerThatIsNoLongerTheExtensionsEnds(String change) throws Exception {
    PolicyServer server = serve(PolicyServer.IDLE);
    switch (change) {
      case "jar changed" ->
          Files.setLastModifiedTime(
              extension.resolve("lib/companion4j.jar"),
              FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
      case "fifo removed" -> Files.delete(extension.resolve("run/policy"));
      default ->
          Files.setPosixFilePermissions(
              extension.resolve("run"), PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    await().atMost(WAIT).until(server::isClosed);
    assertThat(extension.resolve("run/policy")).doesNotExist();
  }

  private static Path mkfifo(Path path) throws Exception {
    exec("mkfifo", "-m", "600", path.toString());
    return path;
  }

  private static void exec(String... command) throws Exception {
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
  }

  /** The pid of a process that has ended. */
  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor(10, TimeUnit.SECONDS);
    return p.pid();
  }

  private static final class MutableClock extends Clock {
    volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
