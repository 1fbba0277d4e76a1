package dev.companion4j.eclipse;

import dev.companion4j.engine.EditorEvent;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.jface.text.ITextSelection;
import org.eclipse.jface.viewers.ISelectionChangedListener;
import org.eclipse.jface.viewers.ISelectionProvider;
import org.eclipse.jface.viewers.SelectionChangedEvent;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.IPartListener2;
import org.eclipse.ui.IURIEditorInput;
import org.eclipse.ui.IWindowListener;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPartReference;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.texteditor.ITextEditor;

/**
 * Tells the companion which file editor is active and where its caret and selection are. Lives on
 * the UI thread: attached, called and detached there. Only editors of files on the local disk
 * count; a compare editor or a file inside an archive is no file to the CLIs.
 */
final class EditorTracker implements IPartListener2, IWindowListener {
  /** The CLIs keep 16 KB of a selection; copying more per caret move would only stall typing. */
  private static final int MAX_SELECTION_CHARS = 16 * 1024;

  private final IWorkbench workbench;
  private final Consumer<EditorEvent> sink;
  private final Map<ITextEditor, ISelectionChangedListener> carets = new HashMap<>();

  EditorTracker(IWorkbench workbench, Consumer<EditorEvent> sink) {
    this.workbench = workbench;
    this.sink = sink;
  }

  void attach() {
    workbench.addWindowListener(this);
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      windowOpened(window);
    }
  }

  void detach() {
    workbench.removeWindowListener(this);
    for (IWorkbenchWindow window : workbench.getWorkbenchWindows()) {
      window.getPartService().removePartListener(this);
    }
    carets.forEach(
        (editor, listener) ->
            editor.getSelectionProvider().removeSelectionChangedListener(listener));
    carets.clear();
  }

  @Override
  public void windowOpened(IWorkbenchWindow window) {
    window.getPartService().addPartListener(this);
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
  public void partActivated(IWorkbenchPartReference ref) {
    if (ref.getPart(false) instanceof IEditorPart editor) {
      focused(editor);
    }
  }

  @Override
  public void partClosed(IWorkbenchPartReference ref) {
    if (ref.getPart(false) instanceof IEditorPart editor) {
      if (editor instanceof ITextEditor text) {
        ISelectionChangedListener listener = carets.remove(text);
        if (listener != null) {
          text.getSelectionProvider().removeSelectionChangedListener(listener);
        }
      }
      Path path = pathOf(editor.getEditorInput());
      if (path != null) {
        sink.accept(new EditorEvent.FileClosed(path));
      }
    }
  }

  private void focused(IEditorPart editor) {
    Path path = pathOf(editor.getEditorInput());
    if (path == null) {
      return;
    }
    sink.accept(new EditorEvent.FileFocused(path));
    if (editor instanceof ITextEditor text) {
      ISelectionProvider provider = text.getSelectionProvider();
      carets.computeIfAbsent(
          text,
          t -> {
            ISelectionChangedListener listener = e -> caret(t, e);
            provider.addSelectionChangedListener(listener);
            return listener;
          });
      if (provider.getSelection() instanceof ITextSelection selection) {
        caret(text, path, selection);
      }
    }
  }

  private void caret(ITextEditor editor, SelectionChangedEvent event) {
    Path path = pathOf(editor.getEditorInput());
    if (path != null && event.getSelection() instanceof ITextSelection selection) {
      caret(editor, path, selection);
    }
  }

  private void caret(ITextEditor editor, Path path, ITextSelection selection) {
    IDocument document = editor.getDocumentProvider().getDocument(editor.getEditorInput());
    if (document == null || selection.getOffset() < 0) {
      return;
    }
    try {
      int line = document.getLineOfOffset(selection.getOffset());
      int character = selection.getOffset() - document.getLineOffset(line) + 1;
      sink.accept(new EditorEvent.CursorMoved(path, line + 1, character));
      int length = Math.min(selection.getLength(), MAX_SELECTION_CHARS);
      sink.accept(
          new EditorEvent.SelectionChanged(path, document.get(selection.getOffset(), length)));
    } catch (BadLocationException stale) {
      // The selection event came after the text changed under it; the next one will be right.
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
