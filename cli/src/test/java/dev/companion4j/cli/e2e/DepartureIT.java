package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.EditorEvents;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * Dead and departed CLIs: a CLI killed with a diff open, and one that disconnects cleanly, leave
 * the companion's client list, take their pending diffs with them, and an answer for such a diff
 * says the CLI is gone.
 */
class DepartureIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * A killed CLI's connections are reset by its kernel; the companion notices on its next write to
   * the notification stream (a heartbeat every 5 s) or at the latest when a ping (every 30 s by
   * default) goes unanswered for 10 s. `serve` has no option to shorten the ping interval.
   */
  private static final Duration KILLED_CLI_NOTICED = Duration.ofSeconds(45);

  /** A CLI that closes its own connection is gone with the next heartbeat at the latest. */
  private static final Duration CLOSED_CLI_NOTICED = Duration.ofSeconds(15);

  @TempDir Path temp;
  private CompanionProcess companion;
  private CliDriver cli;
  private CliDriver other;
  private EditorEvents events;

  @AfterEach
  void tearDown() throws Exception {
    if (events != null) {
      events.close();
    }
    for (CliDriver d : new CliDriver[] {cli, other}) {
      if (d != null) {
        d.close();
      }
    }
    if (companion != null) {
      companion.close();
    }
  }

  private CliDriver connect(Cli which, CliEnvironment env) {
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put(which.portVariable(), Integer.toString(companion.port()));
    CliDriver d = CliDriver.start(which, env.workspace(), vars);
    JsonNode status = d.connect();
    assertThat(status.path("status").asString()).as(d.stderr()).isEqualTo("connected");
    return d;
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void aKilledCliTakesItsDiffAwayAndAnAnswerSaysItIsGone(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("src/App.java", "class App {}\n");
    companion = CompanionProcess.start(env);
    events = EditorEvents.subscribe(companion);
    cli = connect(which, env);
    // A second CLI stays: only the dead one may leave.
    other = connect(which == Cli.QWEN ? Cli.GEMINI : Cli.QWEN, env);
    await().atMost(WAIT).until(() -> Review.clients(companion).size() == 2);
    List<String> before = Review.clientIds(companion);

    String proposed = "class App { int killed; }\n";
    cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", proposed));
    JsonNode diff = Review.awaitPendingDiff(companion, file, proposed, WAIT);
    String id = diff.path("id").asString();
    String clientId = diff.path("clientId").asString();
    assertThat(before).contains(clientId);

    long start = System.nanoTime();
    cli.kill();

    await("the killed CLI's diff leaves /editor/diffs")
        .atMost(KILLED_CLI_NOTICED)
        .until(
            () ->
                Review.pendingDiffs(companion).stream()
                    .noneMatch(d -> d.path("id").asString().equals(id)));
    System.out.printf(
        "%s's diff left %d ms after SIGKILL%n", which, (System.nanoTime() - start) / 1_000_000);
    await("the killed CLI leaves /editor/state")
        .atMost(WAIT)
        .until(() -> !Review.clientIds(companion).contains(clientId));
    assertThat(Review.clientIds(companion)).hasSize(1).doesNotContain(clientId);

    HttpResponse<String> accept = Review.accept(companion, id, null);
    assertThat(accept.statusCode()).as(accept.body()).isEqualTo(410);
    assertThat(CompanionProcess.JSON.readTree(accept.body()).path("outcome").asString())
        .isEqualTo("clientGone");
    assertThat(CompanionProcess.JSON.readTree(accept.body()).path("error").asString()).isNotBlank();
    HttpResponse<String> reject = Review.reject(companion, id);
    assertThat(reject.statusCode()).as(reject.body()).isEqualTo(410);

    // The event stream told the review page both.
    await()
        .atMost(WAIT)
        .until(
            () ->
                events.named("diffClosed").stream()
                    .anyMatch(e -> "clientGone".equals(e.data().path("outcome").asString(null))));
    await()
        .atMost(WAIT)
        .until(
            () ->
                events.named("clientDisconnected").stream()
                    .anyMatch(e -> clientId.equals(e.data().path("id").asString(null))));

    // The CLI that stayed is unaffected: its diffs still work.
    String stays = "class App { int stays; }\n";
    CompletableFuture<JsonNode> outcome =
        other.send("openDiff", Map.of("filePath", file.toString(), "newContent", stays));
    JsonNode diff2 = Review.awaitPendingDiff(companion, file, stays, WAIT);
    assertThat(Review.accept(companion, diff2.path("id").asString(), null).statusCode())
        .isEqualTo(204);
    assertThat(CliDriver.await(outcome, WAIT).path("status").asString()).isEqualTo("accepted");
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void aCliThatDisconnectsLeavesAtOnce(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("src/App.java", "class App {}\n");
    companion = CompanionProcess.start(env);
    cli = connect(which, env);
    await().atMost(WAIT).until(() -> Review.clients(companion).size() == 1);

    long start = System.nanoTime();
    JsonNode status = cli.call("disconnect");
    assertThat(status.path("status").asString()).isEqualTo("disconnected");

    await("the disconnected CLI leaves /editor/state")
        .atMost(CLOSED_CLI_NOTICED)
        .until(() -> Review.clients(companion).isEmpty());
    System.out.printf(
        "%s left %d ms after disconnect%n", which, (System.nanoTime() - start) / 1_000_000);
    // Nothing of it lingers: a new connection is a new, single client.
    assertThat(Review.pendingDiffs(companion)).isEmpty();
    other = connect(which, env);
    await().atMost(WAIT).until(() -> Review.clients(companion).size() == 1);
  }

  @ParameterizedTest
  @EnumSource(Cli.class)
  void aCliThatExitsWithADiffOpenLeavesAtOnceAndTakesItsDiff(Cli which) {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("src/App.java", "class App {}\n");
    companion = CompanionProcess.start(env);
    cli = connect(which, env);
    String proposed = "class App { int exits; }\n";
    cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", proposed));
    String id = Review.awaitPendingDiff(companion, file, proposed, WAIT).path("id").asString();

    // The process ends normally (stdin closed, exit 0): its sockets close in order.
    long start = System.nanoTime();
    cli.close();
    cli = null;

    await("the exited CLI leaves /editor/state")
        .atMost(CLOSED_CLI_NOTICED)
        .until(() -> Review.clients(companion).isEmpty());
    System.out.printf(
        "%s left %d ms after its exit began%n", which, (System.nanoTime() - start) / 1_000_000);
    assertThat(Review.pendingDiffs(companion)).isEmpty();
    assertThat(Review.accept(companion, id, null).statusCode()).isEqualTo(410);
  }
}
