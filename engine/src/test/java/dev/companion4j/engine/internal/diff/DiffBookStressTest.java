package dev.companion4j.engine.internal.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.AnswerResult;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.DiffId;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.internal.loop.EngineLoop;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several CLI sessions open, replace and close diffs for a few shared paths at once while the user
 * answers at random from other threads, thousands of operations per seed. However the steps
 * interleave: every proposal gets exactly one outcome, sent to the session that proposed it, unless
 * it ended in one of the two documented silent ways (closed with {@code suppressNotification}, or
 * replaced by its own session's newer proposal); every view the host opened is closed exactly once;
 * listeners hear every opened diff end once.
 */
class DiffBookStressTest {
  private static final int SESSIONS = 4;
  private static final int PATHS = 3;
  private static final int OPS_PER_SESSION = 1_500;
  private static final int ANSWERERS = 3;

  @TempDir Path workspace;

  @Test
  void everyProposalEndsExactlyOnceWhateverTheInterleaving() throws Exception {
    for (long seed : new long[] {1L, 42L, 20261123L}) {
      run(seed);
    }
  }

  private void run(long seed) throws Exception {
    String seedNote = "seed " + seed + " (rerun with this seed to reproduce)";
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < PATHS; i++) {
      paths.add(Files.writeString(workspace.resolve("f" + i + ".txt"), "original " + i).toString());
    }
    Host host = new Host();
    Outcomes outcomes = new Outcomes();
    Ends ends = new Ends();
    EngineLoop engine = new EngineLoop("stress-engine");
    DiffBook book =
        new DiffBook(
            host, () -> List.of(workspace), outcomes, engine, List.of(ends), Clock.systemUTC());
    Map<DiffId, PendingDiff> proposed = new ConcurrentHashMap<>();
    Map<String, List<PendingDiff>> proposedBySession = new ConcurrentHashMap<>();
    Set<String> closedSilently = ConcurrentHashMap.newKeySet();
    ExecutorService threads = Executors.newFixedThreadPool(SESSIONS + ANSWERERS);
    CountDownLatch clisDone = new CountDownLatch(SESSIONS);
    List<Future<?>> work = new ArrayList<>();
    try {
      for (int s = 0; s < SESSIONS; s++) {
        String session = "session-" + s;
        List<PendingDiff> mine = new CopyOnWriteArrayList<>();
        proposedBySession.put(session, mine);
        Random random = new Random(seed * 31 + s);
        work.add(
            threads.submit(
                () -> {
                  try {
                    for (int i = 0; i < OPS_PER_SESSION; i++) {
                      String path = paths.get(random.nextInt(PATHS));
                      if (random.nextInt(4) == 0) {
                        boolean suppress = random.nextBoolean();
                        Optional<String> closed =
                            book.close(session, path, suppress).get(10, TimeUnit.SECONDS);
                        // The host keeps no edits, so the text names the proposal closed: contents
                        // are unique.
                        closed.filter(c -> suppress).ifPresent(closedSilently::add);
                      } else {
                        PendingDiff diff =
                            book.open(session, path, session + ":" + i).get(10, TimeUnit.SECONDS);
                        proposed.put(diff.id(), diff);
                        mine.add(diff);
                      }
                    }
                  } finally {
                    clisDone.countDown();
                  }
                  return null;
                }));
      }
      for (int a = 0; a < ANSWERERS; a++) {
        Random random = new Random(seed * 17 + a);
        work.add(
            threads.submit(
                () -> {
                  while (clisDone.getCount() > 0) {
                    List<DiffReview> reviews = new ArrayList<>(host.reviews.values());
                    if (reviews.isEmpty()) {
                      Thread.onSpinWait();
                      continue;
                    }
                    DiffReview review = reviews.get(random.nextInt(reviews.size()));
                    AnswerResult result =
                        random.nextBoolean() ? review.accept(null) : review.reject();
                    assertThat(result).isNotInstanceOf(AnswerResult.Unknown.class);
                  }
                  return null;
                }));
      }
      for (Future<?> f : work) {
        f.get(120, TimeUnit.SECONDS);
      }
      // What the storm left pending is answered now, so that every proposal has ended.
      book.pending().forEach(d -> book.reject(d.id()));
      CountDownLatch drained = new CountDownLatch(1);
      engine.execute(drained::countDown);
      assertThat(drained.await(30, TimeUnit.SECONDS)).as(seedNote).isTrue();

      assertThat(book.pending()).as(seedNote).isEmpty();
      assertThat(proposed).as(seedNote).hasSizeGreaterThan(SESSIONS * OPS_PER_SESSION / 2);
      assertThat(outcomes.twice).as(seedNote + ": proposals with two outcomes").isEmpty();
      assertThat(outcomes.wrong).as(seedNote + ": outcomes naming another file").isEmpty();
      for (PendingDiff diff : proposed.values()) {
        if (outcomes.byDiff.containsKey(diff.id())) {
          continue;
        }
        List<PendingDiff> mine = proposedBySession.get(diff.clientId());
        boolean replacedByItsOwnSession =
            mine.subList(mine.indexOf(diff) + 1, mine.size()).stream()
                .anyMatch(later -> later.filePath().equals(diff.filePath()));
        assertThat(closedSilently.contains(diff.newContent()) || replacedByItsOwnSession)
            .as(
                seedNote
                    + ": %s got no outcome, yet was neither closed silently nor replaced by its own session",
                diff)
            .isTrue();
      }
      assertThat(host.doubleClosed).as(seedNote + ": views closed twice").isEmpty();
      assertThat(host.closed)
          .as(seedNote + ": every view closed")
          .containsExactlyInAnyOrderElementsOf(host.shown);
      assertThat(ends.twice).as(seedNote + ": diffs that ended twice for listeners").isEmpty();
      assertThat(ends.ended)
          .as(seedNote + ": listeners heard every opened diff end")
          .isEqualTo(ends.opened);
    } finally {
      threads.shutdownNow();
      engine.shutdown(Duration.ofSeconds(5));
    }
  }

  private static final class Host implements CompanionHost {
    final Set<DiffId> shown = ConcurrentHashMap.newKeySet();
    final List<DiffId> closed = new CopyOnWriteArrayList<>();
    final List<DiffId> doubleClosed = new CopyOnWriteArrayList<>();
    final Map<DiffId, DiffReview> reviews = new ConcurrentHashMap<>();

    @Override
    public IdeInfo ideInfo() {
      return new IdeInfo("stress", "Stress");
    }

    @Override
    public List<Path> workspaceRoots() {
      return List.of();
    }

    @Override
    public void showDiff(PendingDiff diff, DiffReview review) {
      shown.add(diff.id());
      reviews.put(diff.id(), review);
    }

    @Override
    public Optional<String> closeDiff(PendingDiff diff) {
      reviews.remove(diff.id());
      if (closed.contains(diff.id())) {
        doubleClosed.add(diff.id());
      }
      closed.add(diff.id());
      return Optional.empty();
    }
  }

  private static final class Outcomes implements DiffBook.Outcomes {
    final Map<DiffId, String> byDiff = new ConcurrentHashMap<>();
    final List<DiffId> twice = new CopyOnWriteArrayList<>();
    final List<DiffId> wrong = new CopyOnWriteArrayList<>();

    @Override
    public boolean send(PendingDiff diff, String method, Map<String, Object> params) {
      if (byDiff.putIfAbsent(diff.id(), method) != null) {
        twice.add(diff.id());
      }
      if (!diff.filePath().equals(params.get("filePath"))) {
        wrong.add(diff.id());
      }
      return true;
    }
  }

  private static final class Ends implements CompanionListener {
    final Set<DiffId> opened = ConcurrentHashMap.newKeySet();
    final Set<DiffId> ended = ConcurrentHashMap.newKeySet();
    final List<DiffId> twice = new CopyOnWriteArrayList<>();

    @Override
    public void diffOpened(PendingDiff diff) {
      opened.add(diff.id());
    }

    @Override
    public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
      if (!ended.add(diff.id())) {
        twice.add(diff.id());
      }
    }
  }
}
