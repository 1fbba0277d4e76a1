package dev.companion4j.engine;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A question about code the editor answers from what it knows of it ({@link
 * CompanionHost#findCode}). Positions are 1-based: a line, and a character on it counted in Unicode
 * code points; the character lies in the symbol's name. Paths are absolute, normalised and inside a
 * workspace root.
 */
public sealed interface CodeQuery {

  /** The feature a host declares to answer this kind of query. */
  HostFeature feature();

  /** Where in a file a query points. */
  record Position(Path path, int line, int character) {
    public Position {
      Objects.requireNonNull(path, "path");
      if (line < 1 || character < 1) {
        throw new IllegalArgumentException("positions are 1-based, got " + line + ":" + character);
      }
    }
  }

  /** Where the symbol at {@code at} is declared. */
  record Definition(Position at) implements CodeQuery {
    @Override
    public HostFeature feature() {
      return HostFeature.DEFINITION;
    }
  }

  /** Every place the symbol at {@code at} is used, its declaration marked. */
  record References(Position at) implements CodeQuery {
    @Override
    public HostFeature feature() {
      return HostFeature.REFERENCES;
    }
  }

  /** The symbols a file declares, outermost first. */
  record DocumentSymbols(Path path) implements CodeQuery {
    public DocumentSymbols {
      Objects.requireNonNull(path, "path");
    }

    @Override
    public HostFeature feature() {
      return HostFeature.DOCUMENT_SYMBOLS;
    }
  }

  /**
   * The symbols of the workspace whose names match {@code query}, as the editor's own "go to
   * symbol" matches (e.g. part of a name).
   */
  record WorkspaceSymbols(String query) implements CodeQuery {
    public WorkspaceSymbols {
      Objects.requireNonNull(query, "query");
    }

    @Override
    public HostFeature feature() {
      return HostFeature.WORKSPACE_SYMBOLS;
    }
  }

  /**
   * The callers ({@code incoming}) of the function at {@code at}, each with where it calls; or what
   * it calls, each with where the call is written.
   */
  record CallHierarchy(Position at, boolean incoming) implements CodeQuery {
    @Override
    public HostFeature feature() {
      return HostFeature.CALL_HIERARCHY;
    }
  }

  /** The direct supertypes ({@code supertypes}) or subtypes of the type at {@code at}. */
  record TypeHierarchy(Position at, boolean supertypes) implements CodeQuery {
    @Override
    public HostFeature feature() {
      return HostFeature.TYPE_HIERARCHY;
    }
  }

  /**
   * The edits the editor's own refactoring makes to rename the symbol at {@code at}: the whole new
   * text of every file it changes ({@link CompanionHost#renameEdits}). Nothing is written.
   */
  record Rename(Position at, String newName) implements CodeQuery {
    public Rename {
      Objects.requireNonNull(newName, "newName");
    }

    @Override
    public HostFeature feature() {
      return HostFeature.RENAME;
    }

    /** Names the symbol's new name: it is no secret, but the position is enough for a log. */
    @Override
    public String toString() {
      return "Rename[" + at + " to " + newName.length() + " characters]";
    }
  }
}
