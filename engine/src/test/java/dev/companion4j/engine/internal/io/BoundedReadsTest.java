package dev.companion4j.engine.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.Thread.State;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool that reads files within a deadline, as the discovery scanner uses it. */
class BoundedReadsTest {
  @TempDir Path temp;

  @Test
  void anUnboundedPoolReusesAnIdleThreadRatherThanStartingOnePerRead() throws Exception {
    Path file = Files.writeString(temp.resolve("a.lock"), "{}");
    String name = "bounded-reads-test-" + System.nanoTime();
    BoundedReads reads = new BoundedReads(name, Integer.MAX_VALUE);

    for (int i = 0; i < 20; i++) {
      assertThat(reads.read(file, 64, Duration.ofSeconds(5))).isEqualTo("{}".getBytes());
      // The read's thread back in the pool, waiting for the next: reads one after another.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> threads(name).stream().allMatch(t -> t.getState() == State.TIMED_WAITING));
    }

    assertThat(threads(name)).hasSize(1);
  }

  private static List<Thread> threads(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name))
        .toList();
  }
}
