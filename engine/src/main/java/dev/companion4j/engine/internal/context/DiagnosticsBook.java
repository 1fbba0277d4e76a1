package dev.companion4j.engine.internal.context;

import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.FileDiagnostics;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The diagnostics the editor pushed, per file, so that a tool call answers from memory. Fed on the
 * engine thread only; readers on other threads see {@link #snapshot()}, an immutable copy
 * published after every change.
 */
public final class DiagnosticsBook {
  /** Files with diagnostics beyond this lose the longest unchanged ones; no workspace needs more. */
  static final int MAX_FILES = 2000;
  /** Longer messages are cut: a diagnostic is a line in a list, not a document. */
  static final int MAX_MESSAGE_CHARS = 2000;

  private static final Comparator<Diagnostic> MOST_SEVERE_FIRST =
      Comparator.comparing(Diagnostic::severity)
          .thenComparingInt((Diagnostic d) -> d.range().startLine())
          .thenComparingInt(d -> d.range().startCharacter());

  private final Map<Path, FileDiagnostics> files = new LinkedHashMap<>();
  private final Consumer<FileDiagnostics> changed;
  private volatile Map<Path, FileDiagnostics> snapshot = Map.of();
  private volatile boolean reported;

  /** @param changed told of each file whose list changed, on the engine thread */
  public DiagnosticsBook(Consumer<FileDiagnostics> changed) {
    this.changed = changed;
  }

  /** Applies an event that concerns diagnostics; others are ignored. */
  public void apply(EditorEvent event) {
    if (event instanceof EditorEvent.DiagnosticsChanged e) {
      reported = true;
      replace(e.path().toAbsolutePath().normalize(), e.diagnostics());
    } else if (event instanceof EditorEvent.FileClosed e) {
      // A closed editor shows no diagnostics; the file's next opening brings them back.
      removeUnder(e.path());
    } else if (event instanceof EditorEvent.FileDeleted e) {
      removeUnder(e.path());
    } else if (event instanceof EditorEvent.FileRenamed e) {
      Path from = e.from().toAbsolutePath().normalize();
      Path to = e.to().toAbsolutePath().normalize();
      List<Path> moving = files.keySet().stream().filter(p -> p.startsWith(from)).toList();
      for (Path old : moving) {
        FileDiagnostics kept = files.remove(old);
        Path now = to.resolve(from.relativize(old));
        put(now, new FileDiagnostics(now.toString(), kept.diagnostics(), kept.total()));
        publish();
        changed.accept(new FileDiagnostics(old.toString(), List.of(), 0));
        changed.accept(files.get(now));
      }
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

  private void replace(Path path, List<Diagnostic> reportedNow) {
    FileDiagnostics now = new FileDiagnostics(
        path.toString(),
        reportedNow.stream().sorted(MOST_SEVERE_FIRST).limit(FileDiagnostics.MAX_KEPT).map(DiagnosticsBook::bounded).toList(),
        reportedNow.size());
    FileDiagnostics before = files.get(path);
    if (now.equals(before) || (before == null && now.total() == 0)) {
      return;
    }
    files.remove(path);
    if (now.total() > 0) {
      put(path, now);
    }
    publish();
    changed.accept(now);
  }

  private void put(Path path, FileDiagnostics diagnostics) {
    files.put(path, diagnostics);
    while (files.size() > MAX_FILES) {
      Path oldest = files.keySet().iterator().next();
      files.remove(oldest);
      changed.accept(new FileDiagnostics(oldest.toString(), List.of(), 0));
    }
  }

  private void removeUnder(Path raw) {
    Path path = raw.toAbsolutePath().normalize();
    List<Path> gone = files.keySet().stream().filter(p -> p.startsWith(path)).toList();
    if (gone.isEmpty()) {
      return;
    }
    gone.forEach(files::remove);
    publish();
    gone.forEach(p -> changed.accept(new FileDiagnostics(p.toString(), List.of(), 0)));
  }

  private void publish() {
    snapshot = Map.copyOf(files);
  }

  private static Diagnostic bounded(Diagnostic d) {
    if (d.message().length() <= MAX_MESSAGE_CHARS) {
      return d;
    }
    return new Diagnostic(d.range(), d.severity(), d.message().substring(0, MAX_MESSAGE_CHARS) + "…", d.source());
  }
}
