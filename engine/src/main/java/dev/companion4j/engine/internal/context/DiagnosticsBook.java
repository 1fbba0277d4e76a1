package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.FileDiagnostics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The diagnostics the editor pushed, per file, so that a tool call answers from memory. Fed on the
 * engine thread only; readers on other threads see {@link #snapshot()}, an immutable copy published
 * after every change.
 */
public final class DiagnosticsBook {
  /**
   * Files with diagnostics beyond this lose the longest unchanged ones; no workspace needs more.
   */
  static final int MAX_FILES = 2000;

  /**
   * All kept text together, in characters; beyond it the longest unchanged files go too. Each
   * string is capped, but 2000 files of 500 capped diagnostics would still fill a heap.
   */
  static final long MAX_CHARS = 32L * 1024 * 1024;

  private static final Comparator<Diagnostic> MOST_SEVERE_FIRST =
      Comparator.comparing(Diagnostic::severity)
          .thenComparingInt((Diagnostic d) -> d.range().startLine())
          .thenComparingInt(d -> d.range().startCharacter());

  private final Map<Path, FileDiagnostics> files = new LinkedHashMap<>();
  private final Consumer<FileDiagnostics> changed;
  private volatile Map<Path, FileDiagnostics> snapshot = Map.of();
  private volatile boolean reported;
  private long chars;

  /**
   * @param changed told of each file whose list changed, on the engine thread
   */
  public DiagnosticsBook(Consumer<FileDiagnostics> changed) {
    this.changed = changed;
  }

  /**
   * Applies an event that concerns diagnostics; others are ignored. The snapshot is published
   * before anyone hears of a change.
   */
  public void apply(EditorEvent event) {
    List<FileDiagnostics> news = new ArrayList<>();
    if (event instanceof EditorEvent.DiagnosticsChanged e) {
      Path path = e.path().toAbsolutePath().normalize();
      replace(path, e.diagnostics(), news);
      if (!reported && news.isEmpty()) {
        // The first report tells listeners that the editor reports diagnostics, clean file or not.
        news.add(FileDiagnostics.none(path.toString()));
      }
      reported = true;
    } else if (event instanceof EditorEvent.FileClosed e) {
      // A closed editor shows no diagnostics; the file's next opening brings them back.
      removeUnder(e.path(), news);
    } else if (event instanceof EditorEvent.FileDeleted e) {
      removeUnder(e.path(), news);
    } else if (event instanceof EditorEvent.FileRenamed e) {
      Path from = e.from().toAbsolutePath().normalize();
      Path to = e.to().toAbsolutePath().normalize();
      for (Path old : files.keySet().stream().filter(p -> p.startsWith(from)).toList()) {
        FileDiagnostics kept = remove(old);
        Path now = to.resolve(from.relativize(old));
        FileDiagnostics moved =
            new FileDiagnostics(now.toString(), kept.diagnostics(), kept.total());
        news.add(FileDiagnostics.none(old.toString()));
        news.add(moved);
        put(now, moved, news);
      }
    }
    if (!news.isEmpty()) {
      snapshot = Map.copyOf(files);
      news.forEach(changed);
    }
  }

  /** Whether the editor has pushed diagnostics since the companion started. */
  public boolean reported() {
    return reported;
  }

  /** Every file with diagnostics now; safe from any thread. */
  public Map<Path, FileDiagnostics> snapshot() {
    return snapshot;
  }

  /** One file's diagnostics now, empty when it has none; safe from any thread. */
  public Optional<FileDiagnostics> of(Path path) {
    return Optional.ofNullable(snapshot.get(path.toAbsolutePath().normalize()));
  }

  private void replace(Path path, List<Diagnostic> reportedNow, List<FileDiagnostics> news) {
    FileDiagnostics now =
        new FileDiagnostics(
            path.toString(),
            reportedNow.stream().sorted(MOST_SEVERE_FIRST).limit(FileDiagnostics.MAX_KEPT).toList(),
            reportedNow.size());
    FileDiagnostics before = files.get(path);
    if (now.equals(before) || (before == null && now.total() == 0)) {
      return;
    }
    remove(path);
    news.add(now);
    if (now.total() > 0) {
      put(path, now, news);
    }
  }

  private void put(Path path, FileDiagnostics diagnostics, List<FileDiagnostics> news) {
    FileDiagnostics replaced = files.put(path, diagnostics);
    chars += weight(diagnostics) - (replaced == null ? 0 : weight(replaced));
    while (files.size() > MAX_FILES || chars > MAX_CHARS) {
      Path oldest = files.keySet().iterator().next();
      remove(oldest);
      news.add(FileDiagnostics.none(oldest.toString()));
    }
  }

  private void removeUnder(Path raw, List<FileDiagnostics> news) {
    Path path = raw.toAbsolutePath().normalize();
    for (Path gone : files.keySet().stream().filter(p -> p.startsWith(path)).toList()) {
      remove(gone);
      news.add(FileDiagnostics.none(gone.toString()));
    }
  }

  private FileDiagnostics remove(Path path) {
    FileDiagnostics gone = files.remove(path);
    if (gone != null) {
      chars -= weight(gone);
    }
    return gone;
  }

  private static long weight(FileDiagnostics file) {
    return file.path().length()
        + file.diagnostics().stream()
            .mapToLong(d -> d.message().length() + (d.source() == null ? 0 : d.source().length()))
            .sum();
  }
}
