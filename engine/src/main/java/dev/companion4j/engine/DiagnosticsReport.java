package dev.companion4j.engine;

import java.util.List;

/** What {@code GET /ide/diagnostics} answers: the files asked for, those with errors first. */
public record DiagnosticsReport(List<FileDiagnostics> files) {
  public DiagnosticsReport {
    files = List.copyOf(files);
  }
}
