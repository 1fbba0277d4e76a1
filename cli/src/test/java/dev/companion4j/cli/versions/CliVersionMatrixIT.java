package dev.companion4j.cli.versions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.versions.CliVersion.Check;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Launch;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The CLI version matrix: each release's own IdeClient (installed from its pinned lockfile in
 * {@code test-peers/versions/}) against {@code companion4j serve}. Which releases run is the system
 * property {@code companion4j.cliVersions}: {@code ci} (the default: the oldest supported and the
 * newest of each CLI), {@code all}, or directory names such as {@code qwen-0.5.2}. The results go
 * to {@code cli/target/cli-matrix.md}, from which {@code scripts/cli-matrix.sh} writes the table in
 * {@code docs/compatibility.md}.
 *
 * <p>Each release is asked to find the companion from four places:
 *
 * <ul>
 *   <li>beside it: a shell whose parent's parent is an ancestor of the companion, as in a terminal
 *       of the editor that runs the companion or beside a terminal that runs {@code companion4j
 *       serve};
 *   <li>as the command of {@code companion4j run};
 *   <li>elsewhere, with the variables the companion gives terminals ({@code GET /editor/terminal});
 *   <li>elsewhere, without them: three shells deep, so that the CLI takes a process for the IDE
 *       that is no ancestor of the companion.
 * </ul>
 */
class CliVersionMatrixIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Map<CliVersion, Map<Check, String>> RESULTS = new ConcurrentHashMap<>();

  /** Runs the rest of the command in a shell that stays the command's parent. */
  private static final List<String> SHELL = List.of("bash", "-c", "\"$@\"; exit $?", "bash");

  @TempDir Path temp;

  static Stream<CliVersion> selected() {
    String which = System.getProperty("companion4j.cliVersions", "ci");
    Set<String> named = Set.of(which.split(","));
    return CliVersion.ALL.stream()
        .filter(
            v ->
                switch (which) {
                  case "all" -> true;
                  case "ci" -> v.inCi();
                  default -> named.contains(v.directoryName());
                });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("selected")
  void worksAsDeclared(CliVersion version) throws Exception {
    assertThat(version.packages().resolve("node_modules"))
        .as(
            "%s is not installed: ./test.sh installs the releases it runs, scripts/cli-matrix.sh all",
            version)
        .isDirectory();
    Map<Check, String> results = new EnumMap<>(Check.class);
    CliEnvironment env = CliEnvironment.in(temp);
    try (CompanionProcess companion = CompanionProcess.start(env)) {
      Map<String, String> variables = terminalVariables(companion);
      boolean loads =
          check(
              results,
              Check.LOADS,
              () -> {
                try (CliDriver cli = start(version, env, beside(), Map.of())) {
                  cli.call("info");
                }
              });
      if (loads) {
        check(results, Check.RUN, () -> connected(underRun(version)).close());
        check(
            results,
            Check.VARIABLES,
            () -> connected(start(version, env, elsewhere(), variables)).close());
        check(
            results,
            Check.ELSEWHERE,
            () -> connected(start(version, env, elsewhere(), Map.of())).close());
        // The diff checks run on the connection found beside the companion.
        try (CliDriver cli = start(version, env, beside(), Map.of())) {
          if (check(results, Check.BESIDE, () -> connected(cli))) {
            check(results, Check.CONTEXT, () -> receivesContext(companion, env, cli));
            check(results, Check.ACCEPT_EDITED, () -> acceptsWithEdits(companion, env, cli));
            check(results, Check.REJECT, () -> rejects(companion, env, cli));
            check(results, Check.CLOSE_DIFF, () -> closes(companion, env, cli));
          }
        }
      }
    }
    RESULTS.put(version, results);

    Map<Check, Boolean> expected = new EnumMap<>(Check.class);
    Map<Check, Boolean> actual = new EnumMap<>(Check.class);
    results.forEach(
        (check, result) -> {
          expected.put(check, !version.limits().containsKey(check));
          actual.put(check, result.equals(YES));
        });
    assertThat(actual).as("%s: %s", version, results).isEqualTo(expected);
    if (version.supported()) {
      assertThat(results).as("%s ran every check", version).containsOnlyKeys(Check.values());
    }
  }

  private static final String YES = "yes";
  private static final String CLI_SAID = "the CLI said: ";

  /** Runs a check, recording "yes" or what went wrong. */
  private static boolean check(Map<Check, String> results, Check check, ThrowingRunnable body) {
    try {
      body.run();
      results.put(check, YES);
    } catch (Exception | AssertionError e) {
      results.put(check, String.valueOf(e.getMessage()).lines().findFirst().orElse("failed"));
    }
    return YES.equals(results.get(check));
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static CliDriver connected(CliDriver cli) {
    JsonNode status = cli.connect();
    if (!"connected".equals(status.path("status").asString())) {
      String details = status.path("details").asString("");
      cli.close();
      throw new AssertionError(CLI_SAID + details.lines().findFirst().orElse(status.toString()));
    }
    assertThat(status.path("ideDisplayName").asString()).isEqualTo("Companion4J");
    assertThat(status.path("diffingEnabled").asBoolean()).isTrue();
    return cli;
  }

  private static void receivesContext(
      CompanionProcess companion, CliEnvironment env, CliDriver cli) {
    Path main = env.file("src/Main.java", "class Main {}\n");
    companion.event(Map.of("type", "cursor", "path", main.toString(), "line", 1, "character", 7));
    companion.event(Map.of("type", "selection", "path", main.toString(), "text", "class Main"));

    JsonNode active =
        cli.awaitContext(
                c ->
                    "class Main"
                        .equals(
                            c.path("workspaceState")
                                .path("openFiles")
                                .path(0)
                                .path("selectedText")
                                .asString(null)),
                WAIT)
            .path("workspaceState")
            .path("openFiles")
            .path(0);
    assertThat(active.path("path").asString()).isEqualTo(main.toString());
    assertThat(active.path("cursor").path("line").asInt()).isEqualTo(1);
  }

  private static void acceptsWithEdits(
      CompanionProcess companion, CliEnvironment env, CliDriver cli) {
    Path file = env.file("hello.txt", "hello\n");
    CompletableFuture<JsonNode> outcome =
        cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "hello, world\n"));
    String id = awaitPendingDiff(companion, file).path("id").asString();
    assertThat(
            companion
                .post("/editor/diffs/" + id + "/accept", Map.of("content", "hello, edited\n"))
                .statusCode())
        .isEqualTo(204);

    JsonNode answer = CliDriver.await(outcome, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString()).isEqualTo("hello, edited\n");
  }

  private static void rejects(CompanionProcess companion, CliEnvironment env, CliDriver cli) {
    Path file = env.file("new/Created.java", "");
    CompletableFuture<JsonNode> outcome =
        cli.send(
            "openDiff", Map.of("filePath", file.toString(), "newContent", "class Created {}\n"));
    String id = awaitPendingDiff(companion, file).path("id").asString();
    assertThat(companion.post("/editor/diffs/" + id + "/reject", "").statusCode()).isEqualTo(204);

    assertThat(CliDriver.await(outcome, WAIT).path("status").asString()).isEqualTo("rejected");
  }

  private static void closes(CompanionProcess companion, CliEnvironment env, CliDriver cli) {
    Path file = env.file("notes.md", "# old\n");
    cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "# new\n"));
    awaitPendingDiff(companion, file);

    JsonNode closed =
        cli.call("closeDiff", Map.of("filePath", file.toString(), "suppressNotification", true));

    assertThat(closed.path("content").asString()).isEqualTo("# new\n");
    assertThat(companion.get("/editor/diffs").body()).isEqualTo("[]");
  }

  private static JsonNode awaitPendingDiff(CompanionProcess companion, Path file) {
    return await()
        .atMost(WAIT)
        .until(
            () -> {
              for (JsonNode d :
                  CompanionProcess.JSON.readTree(companion.get("/editor/diffs").body())) {
                if (d.path("filePath").asString().equals(file.toString())) {
                  return d;
                }
              }
              return null;
            },
            d -> d != null);
  }

  private static Map<String, String> terminalVariables(CompanionProcess companion) {
    Map<String, String> variables = new HashMap<>();
    CompanionProcess.JSON
        .readTree(companion.get("/editor/terminal").body())
        .properties()
        .forEach(e -> variables.put(e.getKey(), e.getValue().asString()));
    return variables;
  }

  private CliDriver start(
      CliVersion version, CliEnvironment env, List<String> shells, Map<String, String> variables)
      throws IOException {
    Map<String, String> all = new HashMap<>(env.variables());
    all.putAll(variables);
    List<String> prefix = new ArrayList<>(containerHostIsThisMachine());
    prefix.addAll(shells);
    return CliDriver.start(
        version.cli(), env.workspace(), all, new Launch(prefix, version.packages()));
  }

  /**
   * The CLI as the command of {@code companion4j run}, with no shell in between, in an environment
   * of its own: that companion's files must not replace the ones of the companion beside.
   */
  private CliDriver underRun(CliVersion version) throws IOException {
    CliEnvironment own = CliEnvironment.in(temp.resolve("run"));
    List<String> prefix = new ArrayList<>(containerHostIsThisMachine());
    prefix.addAll(CompanionProcess.command("run", "--workspace", own.workspace().toString(), "--"));
    return CliDriver.start(
        version.cli(), own.workspace(), own.variables(), new Launch(prefix, version.packages()));
  }

  private static List<String> beside() {
    return SHELL;
  }

  private static List<String> elsewhere() {
    return Stream.of(SHELL, SHELL, SHELL).flatMap(List::stream).toList();
  }

  /**
   * This machine is a container ({@code /.dockerenv}). Gemini CLI before 0.30 and Qwen Code before
   * 0.15 then always dial {@code host.docker.internal}, which a container runtime points at its
   * host; here the companion runs in the same container, so in a mount namespace of its own the CLI
   * finds that name on this machine.
   */
  private List<String> containerHostIsThisMachine() throws IOException {
    if (!Files.exists(Path.of("/.dockerenv")) && !Files.exists(Path.of("/run/.containerenv"))) {
      return List.of();
    }
    Path hosts = temp.resolve("hosts");
    if (!Files.exists(hosts)) {
      Files.writeString(
          hosts, Files.readString(Path.of("/etc/hosts")) + "\n127.0.0.1 host.docker.internal\n");
    }
    return List.of(
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        "mount --bind \"$0\" /etc/hosts && exec \"$@\"",
        hosts.toString());
  }

  /** The table of every release that ran, for {@code scripts/cli-matrix.sh}. */
  @AfterAll
  static void writeTable() throws IOException {
    List<String> notes = new ArrayList<>();
    StringBuilder table = new StringBuilder("| CLI | version |");
    Arrays.stream(Check.values()).forEach(c -> table.append(' ').append(c.heading).append(" |"));
    table.append("\n|---|---|").append("---|".repeat(Check.values().length)).append('\n');
    for (CliVersion v : CliVersion.ALL) {
      Map<Check, String> results = RESULTS.get(v);
      if (results == null) {
        continue;
      }
      table.append("| ").append(v.product()).append(" | ").append(v.version()).append(" |");
      for (Check c : Check.values()) {
        String result = results.get(c);
        if (result == null) {
          table.append(" – |");
        } else if (result.equals(YES)) {
          table.append(" yes |");
        } else {
          String why = v.limits().getOrDefault(c, "unexpected");
          String note =
              why
                  + (result.startsWith(CLI_SAID)
                      ? "; it then reports “" + result.substring(CLI_SAID.length()) + "”"
                      : "");
          int n = notes.indexOf(note) + 1;
          if (n == 0) {
            notes.add(note);
            n = notes.size();
          }
          table.append(" no (").append(n).append(") |");
        }
      }
      table.append('\n');
    }
    String noteLines =
        notes.isEmpty()
            ? ""
            : "\n"
                + IntStream.range(0, notes.size())
                    .mapToObj(i -> (i + 1) + ". " + notes.get(i))
                    .collect(Collectors.joining("\n"))
                + "\n";
    Path out = TestPeers.repoRoot().resolve("cli/target/cli-matrix.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table + noteLines);
  }
}
