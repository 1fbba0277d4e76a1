package dev.companion4j.netbeans;

import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.netbeans.spi.CodeIntelligence;
import java.awt.EventQueue;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ui.OpenProjects;
import org.openide.cookies.LineCookie;
import org.openide.cookies.OpenCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.loaders.DataObjectNotFoundException;
import org.openide.text.Line;
import org.openide.util.Lookup;

/**
 * The IDE as the engine sees it: open projects as workspace roots, diffs as NetBeans diff windows,
 * questions about code answered by a language's support when one is installed ({@link
 * CodeIntelligence}). Every method runs on the engine thread, except the code ones, which run on
 * the companion's code thread; none waits for the EDT longer than a few seconds, since the EDT may
 * itself be waiting for the companion to stop.
 */
final class NetBeansHost implements CompanionHost {
  static final IdeInfo IDE_INFO = new IdeInfo("netbeans", "Apache NetBeans");

  /** The questions about code and the rename, which HostFeature declares in a row. */
  private static final Set<HostFeature> CODE_FEATURES =
      EnumSet.range(HostFeature.DEFINITION, HostFeature.RENAME);

  /** The longest an accepted change waits for the open files' diagnostics to be checked again. */
  private static final Duration RECHECK_WAIT = Duration.ofSeconds(10);

  private final DiffWindows diffWindows;
  private final ChangeWindows changeWindows = new ChangeWindows();
  private final EditorTracker editors;

  /** The Java support's answers; null in a NetBeans without it. */
  private final CodeIntelligence code;

  NetBeansHost(DiffWindows diffWindows, EditorTracker editors) {
    this.diffWindows = diffWindows;
    this.editors = editors;
    this.code = Lookup.getDefault().lookup(CodeIntelligence.class);
  }

  @Override
  public IdeInfo ideInfo() {
    return IDE_INFO;
  }

  @Override
  public List<Path> workspaceRoots() {
    return openProjectDirectories();
  }

  /** The folders of the open projects that are on disk. */
  static List<Path> openProjectDirectories() {
    List<Path> roots = new ArrayList<>();
    for (Project project : OpenProjects.getDefault().getOpenProjects()) {
      File dir = FileUtil.toFile(project.getProjectDirectory());
      // Projects on virtual file systems (archives, remote) have no directory a CLI could run in.
      if (dir != null) {
        roots.add(dir.toPath());
      }
    }
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) throws DiffViewException {
    diffWindows.show(diff, review);
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return diffWindows.close(diff);
  }

  @Override
  public void showChange(PendingChange change, ChangeReview review) throws DiffViewException {
    changeWindows.show(change, review);
  }

  @Override
  public void closeChange(PendingChange change) {
    changeWindows.close(change);
  }

  @Override
  public Set<HostFeature> features() {
    Set<HostFeature> features =
        EnumSet.of(HostFeature.DIAGNOSTICS, HostFeature.DIRTY_STATE, HostFeature.OPEN_FILE);
    if (code != null) {
      features.addAll(CODE_FEATURES);
    }
    return features;
  }

  @Override
  public List<CodeResult> findCode(CodeQuery query) throws HostActionException {
    return code == null ? CompanionHost.super.findCode(query) : code.find(query);
  }

  @Override
  public Map<Path, String> renameEdits(CodeQuery.Rename rename) throws HostActionException {
    return code == null ? CompanionHost.super.renameEdits(rename) : code.renameEdits(rename);
  }

  /**
   * Each file into its loaded document (one undoable edit) and saved, else through NetBeans' file
   * system: no editor is left with a stale text or a "modified externally" warning. Then the
   * language's index takes the files in and the open files' diagnostics are checked again, since
   * each may depend on files the change wrote after it.
   */
  @Override
  public void writeChange(Map<Path, String> contents) throws HostActionException {
    List<String> written = new ArrayList<>();
    for (Map.Entry<Path, String> file : contents.entrySet()) {
      try {
        EditorFiles.save(file.getKey(), file.getValue());
      } catch (IOException e) {
        throw new HostActionException(
            "could not write "
                + file.getKey()
                + " ("
                + e.getMessage()
                + ")"
                + (written.isEmpty() ? "" : "; written already: " + String.join(", ", written)));
      }
      written.add(file.getKey().toString());
    }
    if (code != null) {
      code.written(contents.keySet());
    }
    try {
      editors.recheckDiagnostics(RECHECK_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Finds the line here; the editor opens it on the EDT, after this returns. */
  @Override
  public String openFile(Path path, int line, int character) throws HostActionException {
    FileObject fo = FileUtil.toFileObject(path.toFile());
    DataObject data;
    try {
      data = fo == null ? null : DataObject.find(fo);
    } catch (DataObjectNotFoundException e) {
      data = null;
    }
    if (data == null) {
      throw new HostActionException("NetBeans cannot open " + path);
    }
    String name = path.getFileName().toString();
    if (line == 0) {
      OpenCookie open = data.getLookup().lookup(OpenCookie.class);
      if (open == null) {
        throw new HostActionException("NetBeans has no editor for " + path);
      }
      EventQueue.invokeLater(open::open);
      return "Opened " + name + " in " + IDE_INFO.displayName() + ".";
    }
    LineCookie lines = data.getLookup().lookup(LineCookie.class);
    if (lines == null) {
      throw new HostActionException("NetBeans has no text editor for " + path);
    }
    Line target;
    try {
      // The line as the document has it now, unsaved edits included.
      target = lines.getLineSet().getCurrent(line - 1);
    } catch (IndexOutOfBoundsException e) {
      throw new HostActionException(name + " has no line " + line);
    }
    EventQueue.invokeLater(
        () ->
            target.show(
                Line.ShowOpenType.OPEN,
                Line.ShowVisibilityType.FOCUS,
                Math.max(character - 1, -1)));
    return "Opened "
        + name
        + " at line "
        + line
        + (character > 0 ? ", column " + character : "")
        + " in "
        + IDE_INFO.displayName()
        + "; the cursor is there.";
  }
}
