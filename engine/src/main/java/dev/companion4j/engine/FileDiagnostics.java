package dev.companion4j.engine;

import java.util.List;
import java.util.Objects;

/**
 * The diagnostics the editor reports for one file, most severe first, then by position.
 *
 * @param path the file's absolute path
 * @param diagnostics what the companion keeps: at most {@link #MAX_KEPT}
 * @param total how many the editor reported; more than {@code diagnostics.size()} when some were
 *     left out
 */
public record FileDiagnostics(String path, List<Diagnostic> diagnostics, int total) {
  /** The most diagnostics kept per file; the least severe beyond it are counted, not kept. */
  public static final int MAX_KEPT = 500;

  public FileDiagnostics {
    Objects.requireNonNull(path, "path");
    diagnostics = List.copyOf(diagnostics);
  }

  /**
   * {@code path} without diagnostics: what a file has when the editor reports none, or no longer
   * any.
   */
  public static FileDiagnostics none(String path) {
    return new FileDiagnostics(path, List.of(), 0);
  }

  /** How many of the reported ones have {@code severity}, among those kept. */
  public long count(Diagnostic.Severity severity) {
    return diagnostics.stream().filter(d -> d.severity() == severity).count();
  }
}
