package dev.companion4j.engine;

import java.util.List;

/**
 * What {@code GET /ide/editors} answers.
 *
 * @param dirtyStateReported whether the editor tells which files are unsaved; when false, every
 *     {@link OpenEditor#dirty()} is false for want of knowing
 * @param editors the open files, newest first
 */
public record OpenEditorsReport(boolean dirtyStateReported, List<OpenEditor> editors) {
  public OpenEditorsReport {
    editors = List.copyOf(editors);
  }
}
