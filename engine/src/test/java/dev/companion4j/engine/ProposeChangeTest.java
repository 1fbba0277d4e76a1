package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change of several files proposed in-process: shown by the host as one unit, answered once for
 * all of its files, never written by the engine, and never accepted over a file that changed on
 * disk since.
 */
class ProposeChangeTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path temp;
  CompanionFixture fixture;
  final List<String> heard = new CopyOnWriteArrayList<>();
  Path a;
  Path b;
  Path created;
  Map<Path, String> rename;

  @BeforeEach
  void start() throws Exception {
    fixture =
        CompanionFixture.start(
            temp,
            new CompanionListener() {
              @Override
              public void changeOpened(PendingChange change) {
                heard.add("opened " + change.id());
              }

              @Override
              public void changeClosed(PendingChange change, ChangeOutcome outcome) {
                heard.add("closed " + change.id() + " " + outcome.getClass().getSimpleName());
              }
            });
    a = Files.writeString(fixture.workspace().resolve("A.java"), "class A { void run() {} }\n");
    b = Files.writeString(fixture.workspace().resolve("B.java"), "class B { A a; { a.run(); } }\n");
    created = fixture.workspace().resolve("Note.txt");
    rename = new LinkedHashMap<>();
    rename.put(a, "class A { void start() {} }\n");
    rename.put(b, "class B { A a; { a.start(); } }\n");
    rename.put(created, "renamed run to start\n");
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private Companion companion() {
    return fixture.companion();
  }

  private PendingChange shownOnce() {
    await().atMost(WAIT).until(() -> !fixture.host().shownChanges.isEmpty());
    return fixture.host().shownChanges.get(0);
  }

  @Test
  void acceptedWithAnEditedFileCompletesOnceWithEveryFilesWholeTextAndWritesNone()
      throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);

    PendingChange change = shownOnce();
    assertThat(change.proposerName()).isEqualTo("rename");
    assertThat(change.files())
        .extracting(PendingChange.File::path, PendingChange.File::existed)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(a, true),
            org.assertj.core.groups.Tuple.tuple(b, true),
            org.assertj.core.groups.Tuple.tuple(created, false));
    assertThat(change.files().get(0).originalContent()).isEqualTo("class A { void run() {} }\n");
    assertThat(companion().pendingChanges()).containsExactly(change);
    assertThat(outcome).isNotDone();

    ChangeReview review = fixture.host().changeReviews.get(change.id());
    ChangeAnswer first = review.accept(Map.of(b, "class B { A a; { a.start(); } } // edited\n"));

    Map<Path, String> written = new LinkedHashMap<>(rename);
    written.put(b, "class B { A a; { a.start(); } } // edited\n");
    ChangeOutcome accepted = new ChangeOutcome.Accepted(written);
    assertThat(first).isEqualTo(new ChangeAnswer.Decided(accepted));
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(accepted);
    assertThat(((ChangeOutcome.Accepted) outcome.get()).contents().keySet())
        .containsExactly(a, b, created);
    assertThat(companion().rejectChange(change.id()))
        .as("answered once")
        .isEqualTo(new ChangeAnswer.Ended(accepted));
    assertThat(Files.readString(a)).as("the engine writes no file").contains("run()");
    assertThat(created).doesNotExist();
    await().atMost(WAIT).until(() -> heard.size() == 2);
    assertThat(heard)
        .containsExactly("opened " + change.id(), "closed " + change.id() + " Accepted");
    assertThat(fixture.host().closedChanges).containsExactly(change);
    assertThat(fixture.host().threads).containsOnly("companion4j-engine");
    assertThat(companion().pendingChanges()).isEmpty();
  }

  @Test
  void rejectedEndsItOnceForEveryFile() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    DiffId id = shownOnce().id();

    assertThat(companion().rejectChange(id))
        .isEqualTo(new ChangeAnswer.Decided(new ChangeOutcome.Rejected()));
    assertThat(companion().acceptChange(id, Map.of()))
        .isEqualTo(new ChangeAnswer.Ended(new ChangeOutcome.Rejected()));
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Rejected());
    assertThat(companion().rejectChange(DiffId.random())).isEqualTo(new ChangeAnswer.Unknown());
  }

  @Test
  void anAcceptOverAFileChangedOnDiskSinceTheProposalEndsItNamingTheFile() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    DiffId id = shownOnce().id();
    Files.writeString(b, "class B { /* the user's own work */ }\n");
    Files.writeString(created, "someone else's file\n");

    ChangeOutcome changed = new ChangeOutcome.ChangedOnDisk(List.of(b, created));
    assertThat(companion().acceptChange(id, Map.of())).isEqualTo(new ChangeAnswer.Decided(changed));
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(changed);
    assertThat(companion().pendingChanges()).isEmpty();
  }

  @Test
  void anEditNamingAFileTheChangeDoesNotHoldIsRefusedAndTheChangeStaysPending() {
    companion().proposeChange("rename", rename);
    DiffId id = shownOnce().id();

    assertThatThrownBy(() -> companion().acceptChange(id, Map.of(temp.resolve("x"), "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds no file");
    assertThat(companion().pendingChange(id)).isPresent();
  }

  @Test
  void aHostThatCannotShowOneRefusesItWithAReason() {
    fixture.host().showsChanges = false;

    assertThat(companion().proposeChange("rename", rename))
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(DiffViewException.class)
        .withMessage("Test IDE cannot show a change of several files for review");
    assertThat(companion().pendingChanges()).isEmpty();
    assertThat(heard).isEmpty();
  }

  @Test
  void aFileOutsideTheWorkspaceOrNamedTwiceRefusesTheWholeChange() {
    Map<Path, String> outside = new LinkedHashMap<>(rename);
    outside.put(temp.resolve("outside.txt"), "x");
    assertThat(companion().proposeChange("rename", outside))
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(IllegalArgumentException.class)
        .withMessageStartingWith("filePath is outside every workspace root");

    Map<Path, String> twice = new LinkedHashMap<>(rename);
    twice.put(fixture.workspace().resolve("sub/../A.java"), "x");
    assertThat(companion().proposeChange("rename", twice))
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .withMessageStartingWith("The change names a file twice");

    assertThat(companion().proposeChange("rename", Map.of()))
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .withMessage("A change needs at least one file");
    assertThat(companion().pendingChanges()).isEmpty();
    assertThat(fixture.host().shownChanges).isEmpty();
  }

  @Test
  void stopEndsItAsStoppedAndALaterOneEndsAtOnce() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    PendingChange change = shownOnce();

    companion().stop();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Stopped());
    assertThat(fixture.host().closedChanges).containsExactly(change);
    assertThat(companion().proposeChange("rename", rename).get(10, TimeUnit.SECONDS))
        .isEqualTo(new ChangeOutcome.Stopped());
    assertThat(fixture.host().shownChanges).hasSize(1);
  }

  @Test
  void cancellingTheFutureWithdrawsTheChange() {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);
    PendingChange change = shownOnce();

    outcome.cancel(false);

    await().atMost(WAIT).until(() -> fixture.host().closedChanges.contains(change));
    assertThat(companion().pendingChanges()).isEmpty();
    assertThat(companion().acceptChange(change.id(), Map.of()))
        .isEqualTo(new ChangeAnswer.Ended(new ChangeOutcome.Rejected()));
  }
}
