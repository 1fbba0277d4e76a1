package dev.companion4j.engine;

/**
 * What a host may offer beyond the IDE-mode contract. A host declares what it offers in {@link
 * CompanionHost#features()}; a host whose editors join later (the headless host's editor API) gains
 * {@link #DIAGNOSTICS} and {@link #DIRTY_STATE} with the first such event it passes on.
 */
public enum HostFeature {
  /** The host pushes each open file's diagnostics ({@link EditorEvent.DiagnosticsChanged}). */
  DIAGNOSTICS("diagnostics"),
  /** The host tells which files have unsaved changes ({@link EditorEvent.DirtyChanged}). */
  DIRTY_STATE("dirtyState"),
  /** The host shows a file at a line and character on request ({@link CompanionHost#openFile}). */
  OPEN_FILE("openFile");

  private final String wireName;

  HostFeature(String wireName) {
    this.wireName = wireName;
  }

  /** The name in {@code GET /ide/status}. */
  public String wireName() {
    return wireName;
  }
}
