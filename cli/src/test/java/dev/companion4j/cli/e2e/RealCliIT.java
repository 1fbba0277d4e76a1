package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * The real CLIs judge the companion: each CLI's own IdeClient, from the pinned npm packages,
 * against {@code companion4j serve} from the shaded jar.
 */
class RealCliIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path temp;
  private CompanionProcess companion;
  private CliDriver cli;

  @AfterEach
  void tearDown() throws Exception {
    if (cli != null) {
      cli.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  private CliDriver connect(Cli which, CliEnvironment env, boolean withPortVariable) {
    Map<String, String> vars = new HashMap<>(env.variables());
    if (withPortVariable) {
      vars.put(which.portVariable(), Integer.toString(companion.port()));
    }
    cli = CliDriver.start(which, env.workspace(), vars);
    return cli;
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void detectsTheIdeByNameAndEnablesDiffingWithThePortVariable(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion =
        CompanionProcess.start(
            env, "--ide-name", "vim", "--ide-display-name", "Vim via Companion4J");

    JsonNode status = connect(which, env, true).connect();

    assertThat(status.path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    assertThat(status.path("ideName").asString()).isEqualTo("vim");
    assertThat(status.path("ideDisplayName").asString()).isEqualTo("Vim via Companion4J");
    assertThat(status.path("diffingEnabled").asBoolean()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void findsTheCompanionByWorkspaceWithoutThePortVariable(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path sub = env.workspace().resolve("src/deep");
    env.file("src/deep/x.txt", "x");

    cli = CliDriver.start(which, sub, env.variables());
    JsonNode status = cli.connect();

    assertThat(status.path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    assertThat(status.path("ideDisplayName").asString()).isEqualTo("Companion4J");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void refusesACliRunOutsideTheWorkspace(Cli which) throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));

    cli = CliDriver.start(which, elsewhere, env.variables());
    JsonNode status = cli.connect();

    assertThat(status.path("status").asString()).isEqualTo("disconnected");
    assertThat(companion.get("/editor/state").body()).contains("\"clients\":[]");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void receivesTheActiveFileCursorAndSelection(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path older = env.file("older.txt", "one\n");
    Path main = env.file("src/Main.java", "class Main {}\n");
    connect(which, env, true).connect();

    companion.event(Map.of("type", "focus", "path", older.toString()));
    companion.event(Map.of("type", "cursor", "path", main.toString(), "line", 3, "character", 7));
    companion.event(Map.of("type", "selection", "path", main.toString(), "text", "class Main"));

    JsonNode context =
        cli.awaitContext(
            c ->
                c.path("workspaceState").path("openFiles").size() == 2
                    && c.path("workspaceState").path("openFiles").get(0).has("selectedText"),
            WAIT);
    JsonNode files = context.path("workspaceState").path("openFiles");
    JsonNode active = files.get(0);
    assertThat(active.path("path").asString()).isEqualTo(main.toString());
    assertThat(active.path("isActive").asBoolean()).isTrue();
    assertThat(active.path("cursor").path("line").asInt()).isEqualTo(3);
    assertThat(active.path("cursor").path("character").asInt()).isEqualTo(7);
    assertThat(active.path("selectedText").asString()).isEqualTo("class Main");
    assertThat(files.get(1).path("path").asString()).isEqualTo(older.toString());
    assertThat(files.get(1).has("cursor")).isFalse();
    assertThat(context.path("workspaceState").path("isTrusted").asBoolean()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void receivesAtMostTenFilesAndATruncatedSelection(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    connect(which, env, true).connect();
    for (int i = 1; i <= 12; i++) {
      companion.event(Map.of("type", "focus", "path", env.file("f" + i + ".txt", "x").toString()));
    }
    Path last = env.workspace().resolve("f12.txt");
    companion.event(
        Map.of("type", "selection", "path", last.toString(), "text", "a".repeat(20_000)));

    JsonNode context =
        cli.awaitContext(
            c -> c.path("workspaceState").path("openFiles").path(0).has("selectedText"), WAIT);
    JsonNode files = context.path("workspaceState").path("openFiles");
    assertThat(files.size()).isEqualTo(10);
    assertThat(files.get(0).path("path").asString()).isEqualTo(last.toString());
    assertThat(files.get(9).path("path").asString()).endsWith("f3.txt");
    assertThat(files.get(0).path("selectedText").asString())
        .isEqualTo("a".repeat(16_384) + "... [TRUNCATED]");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void getsAcceptedWithTheContentEditedInTheEditor(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path file = env.file("hello.txt", "hello\n");
    connect(which, env, true).connect();

    CompletableFuture<JsonNode> outcome =
        cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "hello, world\n"));
    JsonNode pending = awaitPendingDiff(file);
    assertThat(pending.path("originalContent").asString()).isEqualTo("hello\n");
    assertThat(pending.path("newContent").asString()).isEqualTo("hello, world\n");

    String id = pending.path("id").asString();
    assertThat(companion.get("/editor/diffs/" + id).body())
        .contains("\"filePath\":\"" + file + "\"");
    assertThat(
            companion
                .post("/editor/diffs/" + id + "/accept", Map.of("content", "hello, edited\n"))
                .statusCode())
        .isEqualTo(204);

    JsonNode answer = CliDriver.await(outcome, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString()).isEqualTo("hello, edited\n");
    assertThat(companion.get("/editor/diffs").body()).isEqualTo("[]");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void getsRejectedWhenTheUserRejects(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path file = env.file("new/Created.java", "");
    connect(which, env, true).connect();

    CompletableFuture<JsonNode> outcome =
        cli.send(
            "openDiff", Map.of("filePath", file.toString(), "newContent", "class Created {}\n"));
    String id = awaitPendingDiff(file).path("id").asString();
    assertThat(companion.post("/editor/diffs/" + id + "/reject", "").statusCode()).isEqualTo(204);

    assertThat(CliDriver.await(outcome, WAIT).path("status").asString()).isEqualTo("rejected");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void closeDiffReturnsTheProposedContentAndEndsTheReview(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    Path file = env.file("notes.md", "# old\n");
    connect(which, env, true).connect();

    cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "# new\n"));
    String id = awaitPendingDiff(file).path("id").asString();
    JsonNode closed =
        cli.call("closeDiff", Map.of("filePath", file.toString(), "suppressNotification", true));

    assertThat(closed.path("content").asString()).isEqualTo("# new\n");
    assertThat(companion.get("/editor/diffs").body()).isEqualTo("[]");
    HttpResponse<String> late = companion.post("/editor/diffs/" + id + "/accept", "");
    assertThat(late.statusCode()).as(late.body()).isEqualTo(409);
    assertThat(late.body()).contains("closed by the CLI", "\"outcome\":\"closedByClient\"");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void keepsOneNotificationStreamAcrossToolCalls(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    connect(which, env, true).connect();
    for (int i = 0; i < 5; i++) {
      cli.call("closeDiff", Map.of("filePath", env.workspace().resolve("none" + i).toString()));
    }

    // A client that resumes its stream after each call (as Gemini CLI does when POST responses
    // carry SSE ids) reopens it within its one-second reconnection delay.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                companion
                    .stderr()
                    .lines()
                    .filter(l -> l.contains("Notification stream opened"))
                    .count(),
            count -> count == 1);
  }

  private JsonNode awaitPendingDiff(Path file) {
    return await().atMost(WAIT).until(() -> pendingDiff(file), d -> d != null);
  }

  private JsonNode pendingDiff(Path file) {
    for (JsonNode d : CompanionProcess.JSON.readTree(companion.get("/editor/diffs").body())) {
      if (d.path("filePath").asString().equals(file.toString())) {
        return d;
      }
    }
    return null;
  }
}
