package dev.companion4j.eclipse;

import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.TextRange;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IMarkerDelta;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IWorkspaceRoot;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.ITextOperationTarget;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.jface.text.ITextViewer;
import org.eclipse.jface.viewers.ISelectionChangedListener;
import org.eclipse.jface.viewers.ISelectionProvider;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IEditorReference;
import org.eclipse.ui.IPartListener2;
import org.eclipse.ui.IPropertyListener;
import org.eclipse.ui.IURIEditorInput;
import org.eclipse.ui.IWindowListener;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPartReference;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.texteditor.ITextEditor;

/**
 * Tells the companion what the user's file editors show: which is active, where its caret and
 * selection are, whether it has unsaved changes, and the problem markers (JDT's among them) of each
 * open file, and which open files were renamed, moved or deleted. Lives on the UI thread: attached,
 * called and detached there, except the resource listener, which hands what it found over to it.
 * Only editors of files on the local disk count; a compare editor or a file inside an archive is no
 * file to the CLIs.
 */
final class EditorTracker implements IPartListener2, IWindowListener, IResourceChangeListener {
  /** The CLIs keep 16 KB of a selection; copying more per caret move would only stall typing. */
  private static final int MAX_SELECTION_CHARS = 16 * 1024;

  private final IWorkbench workbench;
  private final Consumer<EditorEvent> sink;

  /** The file editors watched, each with what removes its listeners. */
  private final Map<IEditorPart, Runnable> watched = new HashMap<>();

  /** The files the CLIs were told of, by the path they were told under. */
  private final Set<Path> told = new HashSet<>();

  EditorTracker(IWorkbench workbench, Consumer<EditorEvent> sink) {
    this.workbench = workbench;
    this.sink = sink;
  }

  void attach() {
    workbench.addWindowListener(this);
    ResourcesPlugin.getWorkspace()
        .addResourceChangeListener(this, IResourceChangeEvent.POST_CHANGE);
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      windowOpened(window);
    }
  }

  void detach() {
    workbench.removeWindowListener(this);
    ResourcesPlugin.getWorkspace().removeResourceChangeListener(this);
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      window.getPartService().removePartListener(this);
    }
    watched.values().forEach(Runnable::run);
    watched.clear();
  }

  /**
   * Tells the editors open before the tracker, the active one last so that it is the newest: the
   * workbench restores only the active editor of a page and the others' inputs, and keeps their
   * order of use to itself, so the others go in their tabs' order.
   */
  @Override
  public void windowOpened(IWorkbenchWindow window) {
    window.getPartService().addPartListener(this);
    for (IWorkbenchPage page : window.getPages()) {
      for (IEditorReference ref : page.getEditorReferences()) {
        IEditorPart editor = ref.getEditor(false);
        if (editor != null) {
          watch(editor);
        }
        Path path = restoredPath(ref);
        if (path != null && told.add(path)) {
          sink.accept(new EditorEvent.FileFocused(path));
        }
      }
    }
    IWorkbenchPage page = window.getActivePage();
    IEditorPart active = page == null ? null : page.getActiveEditor();
    if (active != null) {
      focused(active);
    }
  }

  @Override
  public void windowClosed(IWorkbenchWindow window) {
    window.getPartService().removePartListener(this);
  }

  @Override
  public void windowActivated(IWorkbenchWindow window) {}

  @Override
  public void windowDeactivated(IWorkbenchWindow window) {}

  @Override
  public void partOpened(IWorkbenchPartReference ref) {
    if (ref.getPart(false) instanceof IEditorPart editor) {
      watch(editor);
    }
  }

  @Override
  public void partActivated(IWorkbenchPartReference ref) {
    if (ref.getPart(false) instanceof IEditorPart editor) {
      focused(editor);
    }
  }

  @Override
  public void partClosed(IWorkbenchPartReference ref) {
    if (ref.getPart(false) instanceof IEditorPart editor) {
      Runnable unwatch = watched.remove(editor);
      if (unwatch != null) {
        unwatch.run();
      }
      Path path = pathOf(editor.getEditorInput());
      if (path != null) {
        sink.accept(new EditorEvent.FileClosed(path));
        if (watched.keySet().stream().noneMatch(e -> path.equals(pathOf(e.getEditorInput())))) {
          told.remove(path);
          // Diagnostics are told for open files only: a closed one's would go stale.
          sink.accept(new EditorEvent.DiagnosticsChanged(path, List.of()));
        }
      }
    }
  }

  /**
   * On the resource listener's thread: the files whose problem markers changed, and the files
   * removed, each with where it went when it was moved or renamed (null when deleted).
   */
  @Override
  public void resourceChanged(IResourceChangeEvent event) {
    Set<Path> changed = new HashSet<>();
    for (IMarkerDelta marker : event.findMarkerDeltas(IMarker.PROBLEM, true)) {
      IPath location = marker.getResource().getLocation();
      if (marker.getResource() instanceof IFile && location != null) {
        changed.add(location.toPath().toAbsolutePath().normalize());
      }
    }
    Map<Path, Path> removed = new HashMap<>();
    IWorkspaceRoot root = ResourcesPlugin.getWorkspace().getRoot();
    IResourceDelta workspace = event.getDelta();
    try {
      if (workspace != null) {
        workspace.accept(
            delta -> {
              IPath from = delta.getResource().getLocation();
              if (delta.getResource() instanceof IFile
                  && delta.getKind() == IResourceDelta.REMOVED
                  && from != null) {
                IPath to =
                    (delta.getFlags() & IResourceDelta.MOVED_TO) != 0
                        ? root.getFile(delta.getMovedToPath()).getLocation()
                        : null;
                removed.put(
                    from.toPath().toAbsolutePath().normalize(),
                    to == null ? null : to.toPath().toAbsolutePath().normalize());
              }
              return true;
            });
      }
    } catch (CoreException e) {
      // The delta visitor throws nothing itself; a file moved is then only a file closed.
    }
    Display display = workbench.getDisplay();
    if ((!changed.isEmpty() || !removed.isEmpty()) && !display.isDisposed()) {
      display.asyncExec(
          () -> {
            markersChanged(changed);
            filesRemoved(removed);
          });
    }
  }

  /** Tells the CLIs of the files they know that were renamed, moved or deleted. */
  private void filesRemoved(Map<Path, Path> removed) {
    removed.forEach(
        (from, to) -> {
          if (told.remove(from)) {
            if (to == null) {
              sink.accept(new EditorEvent.FileDeleted(from));
            } else {
              told.add(to);
              sink.accept(new EditorEvent.FileRenamed(from, to));
            }
          }
        });
  }

  private void markersChanged(Set<Path> changed) {
    for (IEditorPart editor : watched.keySet()) {
      Path path = pathOf(editor.getEditorInput());
      if (path != null && changed.contains(path)) {
        diagnostics(editor, path);
      }
    }
  }

  /** Starts listening to a file editor's caret and unsaved state, once; tells its diagnostics. */
  private void watch(IEditorPart editor) {
    Path path = pathOf(editor.getEditorInput());
    if (path == null || watched.containsKey(editor)) {
      return;
    }
    IPropertyListener dirty =
        (source, property) -> {
          if (property == IEditorPart.PROP_DIRTY) {
            dirty(editor);
          }
        };
    editor.addPropertyListener(dirty);
    Runnable unwatch = () -> editor.removePropertyListener(dirty);
    if (editor instanceof ITextEditor text) {
      ISelectionProvider provider = text.getSelectionProvider();
      ISelectionChangedListener caret =
          e -> {
            Path p = pathOf(text.getEditorInput());
            if (p != null && e.getSelection() instanceof ITextSelection selection) {
              caret(text, p, selection);
            }
          };
      provider.addSelectionChangedListener(caret);
      unwatch =
          () -> {
            editor.removePropertyListener(dirty);
            provider.removeSelectionChangedListener(caret);
          };
    }
    watched.put(editor, unwatch);
    diagnostics(editor, path);
    if (editor.isDirty()) {
      dirty(editor);
    }
  }

  private void focused(IEditorPart editor) {
    Path path = pathOf(editor.getEditorInput());
    if (path == null) {
      return;
    }
    watch(editor);
    told.add(path);
    sink.accept(new EditorEvent.FileFocused(path));
    if (editor instanceof ITextEditor text
        && text.getSelectionProvider().getSelection() instanceof ITextSelection selection) {
      caret(text, path, selection);
    }
  }

  private void caret(ITextEditor editor, Path path, ITextSelection selection) {
    IDocument document = documentOf(editor);
    if (document == null || selection.getOffset() < 0) {
      return;
    }
    try {
      int[] start = Columns.position(document, selection.getOffset());
      int[] end = Columns.position(document, selection.getOffset() + selection.getLength());
      int[] caret = caretAtStart(editor) ? start : end;
      told.add(path);
      sink.accept(new EditorEvent.CursorMoved(path, caret[0], caret[1]));
      int length = Math.min(selection.getLength(), MAX_SELECTION_CHARS);
      sink.accept(
          new EditorEvent.SelectionChanged(
              path,
              document.get(selection.getOffset(), length),
              new TextRange(start[0], start[1], end[0], end[1])));
    } catch (BadLocationException stale) {
      // The selection event came after the text changed under it; the next one will be right.
    }
  }

  /**
   * Whether the caret is at the start of the selection (one made leftwards or upwards) rather than
   * at its end: the selection itself does not say, the editor's text widget does.
   */
  private static boolean caretAtStart(ITextEditor editor) {
    if (editor.getAdapter(ITextOperationTarget.class) instanceof ITextViewer viewer) {
      StyledText widget = viewer.getTextWidget();
      return widget != null
          && !widget.isDisposed()
          && widget.getSelectionCount() > 0
          && widget.getCaretOffset() == widget.getSelection().x;
    }
    return false;
  }

  /** Tells the editor's unsaved state, with its text when it has changes and is not too long. */
  private void dirty(IEditorPart editor) {
    Path path = pathOf(editor.getEditorInput());
    if (path == null) {
      return;
    }
    boolean dirty = editor.isDirty();
    IDocument document = editor instanceof ITextEditor text ? documentOf(text) : null;
    String text =
        dirty
                && document != null
                && document.getLength() <= EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS
            ? document.get()
            : null;
    sink.accept(new EditorEvent.DirtyChanged(path, dirty, text));
  }

  /** Tells the file's problem markers (errors, warnings, infos), all of them, as diagnostics. */
  private void diagnostics(IEditorPart editor, Path path) {
    IFile file = editor.getEditorInput().getAdapter(IFile.class);
    if (file == null || !file.exists()) {
      return;
    }
    IMarker[] markers;
    try {
      markers = file.findMarkers(IMarker.PROBLEM, true, IResource.DEPTH_ZERO);
    } catch (CoreException e) {
      return;
    }
    IDocument document = editor instanceof ITextEditor text ? documentOf(text) : null;
    List<Diagnostic> diagnostics = new ArrayList<>();
    for (IMarker marker : markers) {
      String message = marker.getAttribute(IMarker.MESSAGE, "");
      if (!message.isBlank()) {
        diagnostics.add(
            new Diagnostic(
                rangeOf(marker, document),
                severityOf(marker),
                message,
                marker.getAttribute(IMarker.SOURCE_ID, null)));
      }
    }
    sink.accept(new EditorEvent.DiagnosticsChanged(path, diagnostics));
  }

  private static Diagnostic.Severity severityOf(IMarker marker) {
    return switch (marker.getAttribute(IMarker.SEVERITY, IMarker.SEVERITY_INFO)) {
      case IMarker.SEVERITY_ERROR -> Diagnostic.Severity.ERROR;
      case IMarker.SEVERITY_WARNING -> Diagnostic.Severity.WARNING;
      default -> Diagnostic.Severity.INFORMATION;
    };
  }

  /**
   * The marker's characters when it has them and the document still reaches them, else its whole
   * line's start, else the file's start.
   */
  private static TextRange rangeOf(IMarker marker, IDocument document) {
    int start = marker.getAttribute(IMarker.CHAR_START, -1);
    int end = marker.getAttribute(IMarker.CHAR_END, -1);
    if (document != null && start >= 0 && end >= start && end <= document.getLength()) {
      try {
        int[] from = Columns.position(document, start);
        int[] to = Columns.position(document, end);
        return new TextRange(from[0], from[1], to[0], to[1]);
      } catch (BadLocationException stale) {
        // The text changed since the marker was made; its line still says where.
      }
    }
    int line = marker.getAttribute(IMarker.LINE_NUMBER, 1);
    return TextRange.at(Math.max(line, 1), 1);
  }

  private static IDocument documentOf(ITextEditor editor) {
    return editor.getDocumentProvider() == null
        ? null
        : editor.getDocumentProvider().getDocument(editor.getEditorInput());
  }

  /** The file an editor shows, without restoring the editor itself; null when it has none. */
  private static Path restoredPath(IEditorReference ref) {
    try {
      return pathOf(ref.getEditorInput());
    } catch (PartInitException e) {
      return null;
    }
  }

  /** The file on the local disk an editor shows, or null for anything else. */
  static Path pathOf(IEditorInput input) {
    if (input instanceof IURIEditorInput file) {
      URI uri = file.getURI();
      if (uri != null && "file".equals(uri.getScheme())) {
        return Path.of(uri).toAbsolutePath().normalize();
      }
    }
    return null;
  }
}
