package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-process proposer's edits: pending diffs like a CLI's, shown by the host and named by the
 * proposer, whose outcome completes the proposer's future once.
 */
class ProposeTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path temp;
  CompanionFixture fixture;
  Path file;

  @BeforeEach
  void start() throws Exception {
    fixture = CompanionFixture.start(temp);
    file = Files.writeString(fixture.workspace().resolve("a.txt"), "old\n");
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private Companion companion() {
    return fixture.companion();
  }

  private PendingDiff shownOnce() {
    await().atMost(WAIT).until(() -> !fixture.host().shown.isEmpty());
    return fixture.host().shown.get(0);
  }

  @Test
  void acceptedWithAnEditCompletesTheFutureWithTheEditedTextAndTheStatusNamesTheProposer()
      throws Exception {
    CompletableFuture<DiffOutcome> outcome = companion().propose("Qwen Code chat", file, "new\n");

    PendingDiff diff = shownOnce();
    assertThat(diff.originalContent()).isEqualTo("old\n");
    assertThat(diff.newContent()).isEqualTo("new\n");
    assertThat(companion().status().pendingDiffs())
        .singleElement()
        .extracting(CompanionStatus.Diff::clientName)
        .isEqualTo("Qwen Code chat");
    assertThat(outcome).isNotDone();

    assertThat(fixture.host().reviews.get(diff.id()).accept("edited\n"))
        .isEqualTo(new AnswerResult.Sent(new DiffOutcome.Accepted("edited\n")));

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new DiffOutcome.Accepted("edited\n"));
    assertThat(Files.readString(file)).as("the engine never writes the file").isEqualTo("old\n");
    await().atMost(WAIT).until(() -> fixture.host().closed.contains(diff));
    assertThat(fixture.host().threads).containsOnly("companion4j-engine");
  }

  @Test
  void rejectedIsAnsweredOnceAndReachesNoCli() throws Exception {
    CompletableFuture<DiffOutcome> outcome = companion().propose("agent", file, "new\n");
    DiffId id = shownOnce().id();

    assertThat(companion().rejectDiff(id))
        .isEqualTo(new AnswerResult.Sent(new DiffOutcome.Rejected()));
    assertThat(companion().acceptDiff(id, null))
        .as("answered once")
        .isEqualTo(new AnswerResult.Ended(new DiffOutcome.Rejected()));

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new DiffOutcome.Rejected());
    assertThat(companion().pendingDiffs()).isEmpty();
    assertThat(fixture.client().received("ide/diffRejected")).isEmpty();
  }

  @Test
  void aCliProposalForTheSamePathReplacesIt() throws Exception {
    CompletableFuture<DiffOutcome> outcome = companion().propose("agent", file, "agent's\n");
    shownOnce();

    fixture.client().call("openDiff", Map.of("filePath", file.toString(), "newContent", "cli's\n"));

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new DiffOutcome.Replaced());
    assertThat(companion().pendingDiffs())
        .singleElement()
        .extracting(PendingDiff::newContent)
        .isEqualTo("cli's\n");
  }

  @Test
  void itReplacesACliProposalForTheSamePathAndTheCliHearsItWasRejected() throws Exception {
    fixture.client().call("openDiff", Map.of("filePath", file.toString(), "newContent", "cli's\n"));

    CompletableFuture<DiffOutcome> outcome = companion().propose("agent", file, "agent's\n");

    await().atMost(WAIT).until(() -> !fixture.client().received("ide/diffRejected").isEmpty());
    assertThat(fixture.client().received("ide/diffRejected").get(0).params())
        .isEqualTo(Map.of("filePath", file.toString()));
    PendingDiff agents = companion().pendingDiffs().get(0);
    assertThat(agents.newContent()).isEqualTo("agent's\n");
    companion().acceptDiff(agents.id(), null);
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new DiffOutcome.Accepted("agent's\n"));
    assertThat(fixture.client().received("ide/diffAccepted"))
        .as("the CLI hears nothing of the agent's outcome")
        .isEmpty();
  }

  @Test
  void stopEndsItAsStoppedAndALaterProposalEndsAtOnce() throws Exception {
    CompletableFuture<DiffOutcome> outcome = companion().propose("agent", file, "new\n");
    shownOnce();

    companion().stop();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new DiffOutcome.Stopped());
    assertThat(companion().propose("agent", file, "later\n").get(10, TimeUnit.SECONDS))
        .isEqualTo(new DiffOutcome.Stopped());
    assertThat(fixture.host().shown).hasSize(1);
  }

  @Test
  void cancellingTheFutureWithdrawsTheProposal() {
    CompletableFuture<DiffOutcome> outcome = companion().propose("agent", file, "new\n");
    PendingDiff diff = shownOnce();

    outcome.cancel(false);

    await().atMost(WAIT).until(() -> fixture.host().closed.contains(diff));
    assertThat(companion().pendingDiffs()).isEmpty();
    assertThat(companion().acceptDiff(diff.id(), null))
        .isEqualTo(new AnswerResult.Ended(new DiffOutcome.Rejected()));
  }

  @Test
  void aRefusedPathOrAHostThatCannotShowItFailsTheFutureWithTheReason() {
    CompletableFuture<DiffOutcome> outside =
        companion().propose("agent", temp.resolve("outside.txt"), "x");
    assertThat(outside)
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(IllegalArgumentException.class)
        .withMessageStartingWith("filePath is outside every workspace root");

    fixture.host().refuseWith = "no window";
    assertThat(companion().propose("agent", file, "x"))
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(DiffViewException.class)
        .withMessageContaining("no window");
    assertThat(companion().pendingDiffs()).isEmpty();
  }
}
