package dev.companion4j.cli;

import dev.companion4j.cli.editorapi.EditorApi;
import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The host without an editor window: diffs wait in the editor API until a page or an editor plugin
 * answers them by id, or the user answers in the terminal. Diagnostics and unsaved state come from
 * the editors that post them; requests to open a file go to the editors that follow the event
 * stream and said they handle them. Questions about code and a rename's edits go to those editors
 * too, which answer from their language tools; an accepted rename is written to disk, and the
 * editors reload the files when they hear the change closed.
 */
final class HeadlessHost implements CompanionHost {
  private final IdeInfo ideInfo;
  private final List<Path> roots;
  private final EditorApi editorApi;

  HeadlessHost(IdeInfo ideInfo, List<Path> roots, EditorApi editorApi) {
    this.ideInfo = ideInfo;
    this.roots = List.copyOf(roots);
    this.editorApi = editorApi;
  }

  @Override
  public Set<HostFeature> features() {
    return Set.of(
        HostFeature.OPEN_FILE,
        HostFeature.DEFINITION,
        HostFeature.REFERENCES,
        HostFeature.DOCUMENT_SYMBOLS,
        HostFeature.WORKSPACE_SYMBOLS,
        HostFeature.CALL_HIERARCHY,
        HostFeature.TYPE_HIERARCHY,
        HostFeature.RENAME);
  }

  @Override
  public List<CodeResult> findCode(CodeQuery query) throws HostActionException {
    return editorApi.findCode(query);
  }

  @Override
  public Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException {
    return editorApi.renameEdits(rename);
  }

  @Override
  public String openFile(Path path, int line, int character) throws HostActionException {
    int editors = editorApi.requestOpen(path, line, character);
    if (editors == 0) {
      throw new HostActionException(
          "No editor follows this companion's event stream (GET "
              + EditorApi.PATH
              + "/events/stream), so none can open the file; tell the user the place instead: "
              + path
              + (line > 0 ? ":" + line : ""));
    }
    return "Asked "
        + (editors == 1 ? "the editor" : "the " + editors + " editors")
        + " following the companion to show "
        + path
        + (line > 0 ? " at line " + line + (character > 0 ? ", character " + character : "") : "")
        + ".";
  }

  @Override
  public IdeInfo ideInfo() {
    return ideInfo;
  }

  @Override
  public List<Path> workspaceRoots() {
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) {
    // Listed by the editor API and announced on its event stream, which answers through
    // Companion.acceptDiff/rejectDiff by id; nothing to open here.
  }

  @Override
  public void showChange(PendingChange change, ChangeReview review) {
    // Like a diff: listed by the editor API, announced on its stream and answered there by id.
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return Optional.empty();
  }
}
