package dev.companion4j.eclipse;

import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.eclipse.core.filesystem.EFS;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.ide.IDE;
import org.eclipse.ui.texteditor.ITextEditor;

/** The Eclipse workbench as the engine sees it. */
final class EclipseHost implements CompanionHost {
  static final IdeInfo IDE_INFO = new IdeInfo("eclipse", "Eclipse IDE");

  /** How long the engine thread waits for the UI thread to open an editor. */
  private static final Duration OPEN_BOUND = Duration.ofSeconds(5);

  private final IWorkbench workbench;
  private final DiffEditors diffs;

  EclipseHost(IWorkbench workbench) {
    this.workbench = workbench;
    this.diffs = new DiffEditors(workbench);
  }

  /** The companion's listener that tells the user when a proposal's CLI left. */
  DiffEditors diffEditors() {
    return diffs;
  }

  @Override
  public IdeInfo ideInfo() {
    return IDE_INFO;
  }

  /** The open projects' folders on the local disk; a project elsewhere (a remote one) has none. */
  @Override
  public List<Path> workspaceRoots() {
    List<Path> roots = new ArrayList<>();
    for (IProject project : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
      IPath location = project.isOpen() ? project.getLocation() : null;
      if (location != null) {
        roots.add(location.toPath().toAbsolutePath().normalize());
      }
    }
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) throws DiffViewException {
    diffs.show(diff, review);
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return diffs.close(diff);
  }

  @Override
  public Set<HostFeature> features() {
    return Set.of(HostFeature.OPEN_FILE);
  }

  @Override
  public String openFile(Path path, int line, int character) throws HostActionException {
    try {
      return UiThread.call(
          workbench.getDisplay(), OPEN_BOUND, () -> openNow(path, line, character));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof HostActionException refused) {
        throw refused;
      }
      throw new HostActionException(
          "Eclipse failed to open " + path.getFileName() + ": " + e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new HostActionException(
          "Eclipse did not open "
              + path.getFileName()
              + " within "
              + OPEN_BOUND.toSeconds()
              + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostActionException("Interrupted while Eclipse opened " + path.getFileName());
    }
  }

  /** On the UI thread: opens the file's editor, the caret at the line and column when given. */
  private String openNow(Path path, int line, int character) throws HostActionException {
    String name = path.getFileName().toString();
    IWorkbenchWindow window = workbench.getActiveWorkbenchWindow();
    if (window == null && workbench.getWorkbenchWindowCount() > 0) {
      window = workbench.getWorkbenchWindows()[0];
    }
    if (window == null || window.getActivePage() == null) {
      throw new HostActionException("Eclipse has no workbench window to open " + name + " in");
    }
    IEditorPart editor;
    try {
      // A file of a project opens as the workspace's file, any other as a file on disk.
      editor =
          IDE.openEditorOnFileStore(
              window.getActivePage(), EFS.getLocalFileSystem().getStore(path.toUri()));
    } catch (PartInitException e) {
      throw new HostActionException("Eclipse cannot open " + name + ": " + e.getMessage());
    }
    if (line == 0) {
      return "Opened " + name + " in " + IDE_INFO.displayName() + ".";
    }
    if (!(editor instanceof ITextEditor text)) {
      throw new HostActionException("Eclipse opened " + name + " in an editor without lines");
    }
    // The document as the editor has it now, unsaved edits included.
    IDocument document = text.getDocumentProvider().getDocument(text.getEditorInput());
    if (line > document.getNumberOfLines()) {
      throw new HostActionException(name + " has no line " + line);
    }
    try {
      text.selectAndReveal(Columns.offset(document, line, character), 0);
    } catch (BadLocationException e) {
      throw new HostActionException(name + " has no line " + line);
    }
    return "Opened " + name + " at line " + line + " in " + IDE_INFO.displayName() + ".";
  }
}
