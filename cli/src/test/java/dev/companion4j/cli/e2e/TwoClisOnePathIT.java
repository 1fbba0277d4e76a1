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
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Qwen Code and Gemini CLI, both connected to one companion, propose edits to the same file at the
 * same time, round after round, while the editor answers by id at random. Each proposal is answered
 * exactly once, to the CLI that made it, with the answer the editor gave (or rejected, when the
 * other CLI's proposal replaced it before it was answered).
 */
class TwoClisOnePathIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int ROUNDS = 30;
  private static final long SEED = Long.getLong("companion4j.twoClis.seed", 20_261_123L);

  @TempDir Path temp;
  private CompanionProcess companion;
  private final Map<Cli, CliDriver> clis = new EnumMap<>(Cli.class);
  private final Map<Cli, String> clientIds = new EnumMap<>(Cli.class);
  private EditorEvents events;

  /** What the test decided for one proposal, and so what its CLI must hear. */
  private record Expected(String status, String content) {}

  @AfterEach
  void tearDown() throws Exception {
    if (events != null) {
      events.close();
    }
    for (CliDriver d : clis.values()) {
      d.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  @Test
  void concurrentProposalsForOnePathEachGetTheirOwnAnswerOnce() {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("src/Shared.java", "class Shared {}\n");
    companion = CompanionProcess.start(env);
    events = EditorEvents.subscribe(companion);
    for (Cli which : Cli.values()) {
      Map<String, String> vars = new HashMap<>(env.variables());
      vars.put(which.portVariable(), Integer.toString(companion.port()));
      CliDriver d = CliDriver.start(which, env.workspace(), vars);
      clis.put(which, d);
      assertThat(d.connect().path("status").asString()).as(d.stderr()).isEqualTo("connected");
      int connected = clientIds.size() + 1;
      await().atMost(WAIT).until(() -> Review.clientIds(companion).size() == connected);
      Review.clientIds(companion).stream()
          .filter(id -> !clientIds.containsValue(id))
          .forEach(id -> clientIds.put(which, id));
    }

    Random random = new Random(SEED);
    String seed = "seed " + SEED + " (rerun with -Dcompanion4j.twoClis.seed=" + SEED + ")";
    Set<String> answered = new HashSet<>();
    int accepted = 0;
    int rejected = 0;
    int replaced = 0;
    for (int round = 0; round < ROUNDS; round++) {
      Map<Cli, String> proposal = new EnumMap<>(Cli.class);
      Map<Cli, CompletableFuture<JsonNode>> outcome = new EnumMap<>(Cli.class);
      Map<Cli, Expected> expected = new EnumMap<>(Cli.class);
      for (Cli which : Cli.values()) {
        proposal.put(
            which, "class Shared { String by = \"" + which + "\"; int round = " + round + "; }\n");
      }
      String context = seed + ", round " + round;
      Cli first = random.nextBoolean() ? Cli.QWEN : Cli.GEMINI;
      Cli second = first == Cli.QWEN ? Cli.GEMINI : Cli.QWEN;
      int mode = random.nextInt(3);
      outcome.put(first, propose(first, file, proposal));
      if (mode == 0) {
        // Both at once: whichever arrives second replaces the other.
        outcome.put(second, propose(second, file, proposal));
      } else {
        JsonNode listed = Review.awaitPendingDiff(companion, file, proposal.get(first), WAIT);
        if (mode == 1) {
          // The editor answers what it listed, after the other CLI replaced it: refused, not sent.
          outcome.put(second, propose(second, file, proposal));
          Review.awaitPendingDiff(companion, file, proposal.get(second), WAIT);
          int status = answer(listed, proposal, expected, answered, random, context);
          assertThat(status).as(context + ": answering a replaced diff").isEqualTo(409);
        } else {
          // Answered before the other CLI proposes.
          assertThat(answer(listed, proposal, expected, answered, random, context))
              .as(context)
              .isEqualTo(204);
          outcome.put(second, propose(second, file, proposal));
        }
      }

      // Answer whatever is listed, at random, until both proposals are resolved.
      await(context + ": both openDiffs resolved")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                for (JsonNode diff : Review.pendingDiffs(companion)) {
                  if (!answered.contains(diff.path("id").asString())) {
                    answer(diff, proposal, expected, answered, random, context);
                  }
                }
                return outcome.size() == 2
                    && outcome.values().stream().allMatch(CompletableFuture::isDone);
              });

      for (Cli which : Cli.values()) {
        JsonNode got = CliDriver.await(outcome.get(which), WAIT);
        Expected want = expected.getOrDefault(which, new Expected("rejected", null));
        assertThat(got.path("ok").asBoolean()).as(context + ": " + which + " " + got).isTrue();
        assertThat(got.path("status").asString())
            .as(context + ": " + which + " heard " + got + ", expected " + want)
            .isEqualTo(want.status());
        if (want.content() != null) {
          assertThat(got.path("content").asString())
              .as(context + ": " + which)
              .isEqualTo(want.content());
        }
        switch (want.status()) {
          case "accepted" -> accepted++;
          default -> {
            if (expected.containsKey(which)) {
              rejected++;
            } else {
              replaced++;
            }
          }
        }
      }
      assertThat(Review.pendingDiffs(companion)).as(context).isEmpty();
    }

    System.out.printf(
        "%s: %d accepted, %d rejected, %d replaced or answered after replacement%n",
        seed, accepted, rejected, replaced);
    assertThat(Review.pendingDiffs(companion)).isEmpty();
    // Every diff the page saw open, it saw closed, once.
    await(seed + ": as many diffClosed as diffOpened")
        .atMost(WAIT)
        .until(
            () ->
                events.count("diffClosed") == events.count("diffOpened")
                    && events.count("diffOpened") >= ROUNDS);
    assertThat(events.count("diffOpened")).isLessThanOrEqualTo(2L * ROUNDS);
    // A little later still nothing more: no diff closes twice.
    await()
        .pollDelay(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> events.count("diffClosed") == events.count("diffOpened"));
    // Both CLIs are still there, and nothing was answered that the companion did not list.
    assertThat(Review.clients(companion)).hasSize(2);
    assertThat(answered).hasSizeLessThanOrEqualTo(2 * ROUNDS);
  }

  private CompletableFuture<JsonNode> propose(Cli which, Path file, Map<Cli, String> proposal) {
    return clis.get(which)
        .send("openDiff", Map.of("filePath", file.toString(), "newContent", proposal.get(which)));
  }

  /**
   * Accepts (with an edit naming the diff) or rejects a listed diff at random, by id, and records
   * what its CLI must hear when the companion sent the answer (204).
   *
   * @return the editor API's status
   */
  private int answer(
      JsonNode diff,
      Map<Cli, String> proposal,
      Map<Cli, Expected> expected,
      Set<String> answered,
      Random random,
      String context) {
    String id = diff.path("id").asString();
    assertThat(answered.add(id)).as(context + ": answered once: " + id).isTrue();
    Cli by = proposerOf(diff, proposal);
    assertThat(by)
        .as(context + ": a listed diff is one of this round's proposals: " + diff)
        .isNotNull();
    assertThat(diff.path("clientId").asString())
        .as(context + ": proposer of " + diff)
        .isEqualTo(clientIds.get(by));
    boolean accept = random.nextBoolean();
    String edited = "class Shared { /* accepted " + id + " for " + by + " */ }\n";
    HttpResponse<String> r =
        accept ? Review.accept(companion, id, edited) : Review.reject(companion, id);
    if (r.statusCode() == 204) {
      expected.put(by, accept ? new Expected("accepted", edited) : new Expected("rejected", null));
    } else {
      // The other CLI's proposal replaced it between listing and answering: its CLI hears rejected.
      assertThat(r.statusCode()).as(context + ": " + r.body()).isEqualTo(409);
      assertThat(CompanionProcess.JSON.readTree(r.body()).path("outcome").asString())
          .as(context + ": " + r.body())
          .isEqualTo("replaced");
    }
    return r.statusCode();
  }

  private static Cli proposerOf(JsonNode diff, Map<Cli, String> proposal) {
    for (Map.Entry<Cli, String> e : proposal.entrySet()) {
      if (e.getValue().equals(diff.path("newContent").asString())) {
        return e.getKey();
      }
    }
    return null;
  }
}
