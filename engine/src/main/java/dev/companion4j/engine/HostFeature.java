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
  OPEN_FILE("openFile"),
  /** The host finds where a symbol is declared ({@link CodeQuery.Definition}). */
  DEFINITION("definition"),
  /** The host finds where a symbol is used ({@link CodeQuery.References}). */
  REFERENCES("references"),
  /** The host lists a file's symbols ({@link CodeQuery.DocumentSymbols}). */
  DOCUMENT_SYMBOLS("documentSymbols"),
  /** The host finds symbols by name across the workspace ({@link CodeQuery.WorkspaceSymbols}). */
  WORKSPACE_SYMBOLS("workspaceSymbols"),
  /** The host lists a function's callers or callees ({@link CodeQuery.CallHierarchy}). */
  CALL_HIERARCHY("callHierarchy"),
  /** The host lists a type's supertypes or subtypes ({@link CodeQuery.TypeHierarchy}). */
  TYPE_HIERARCHY("typeHierarchy"),
  /**
   * The host computes a rename with its refactoring ({@link CompanionHost#renameEdits}) and shows a
   * change of several files ({@link CompanionHost#showChange}).
   */
  RENAME("rename");

  private final String wireName;

  HostFeature(String wireName) {
    this.wireName = wireName;
  }

  /** The name in {@code GET /ide/status}. */
  public String wireName() {
    return wireName;
  }
}
