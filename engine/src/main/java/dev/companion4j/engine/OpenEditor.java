package dev.companion4j.engine;

import java.util.Objects;

/**
 * A file open in the editor, as {@code GET /ide/editors} tells it.
 *
 * @param path its absolute path
 * @param active whether it has the focus
 * @param cursor the caret, on the active file only, or null
 * @param selectedText the selection, on the active file only, or null
 * @param selection where the selection is, when the editor says, or null
 * @param dirty whether it has changes not saved yet; false too when the editor does not report it
 *     (see {@link HostFeature#DIRTY_STATE})
 */
public record OpenEditor(
    String path,
    boolean active,
    IdeContext.Cursor cursor,
    String selectedText,
    TextRange selection,
    boolean dirty) {
  public OpenEditor {
    Objects.requireNonNull(path, "path");
  }
}
