package dev.companion4j.cli.bench;

import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the benchmark programs share: percentiles, formatting, clean-up and a host that shows
 * nothing.
 */
final class BenchSupport {
  private BenchSupport() {}

  static long percentile(long[] samples, int p) {
    long[] sorted = samples.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }

  static String millis(long nanos) {
    return String.format("%.2f ms", nanos / 1e6);
  }

  static void delete(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  /** A host that shows nothing: the benchmark measures the engine, not an editor. */
  record NullHost(Path root) implements CompanionHost {
    @Override
    public IdeInfo ideInfo() {
      return new IdeInfo("bench", "Benchmark");
    }

    @Override
    public List<Path> workspaceRoots() {
      return List.of(root);
    }

    @Override
    public void showDiff(PendingDiff diff, DiffReview review) {}

    @Override
    public Optional<String> closeDiff(PendingDiff diff) {
      return Optional.empty();
    }
  }
}
