package dev.companion4j.netbeans;

import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.TextRange;
import java.awt.EventQueue;
import java.beans.PropertyChangeEvent;
import java.beans.PropertyChangeListener;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.swing.JEditorPane;
import javax.swing.SwingUtilities;
import javax.swing.event.CaretEvent;
import javax.swing.event.CaretListener;
import javax.swing.event.ChangeListener;
import javax.swing.text.BadLocationException;
import javax.swing.text.Document;
import javax.swing.text.Element;
import javax.swing.text.JTextComponent;
import javax.swing.text.StyledDocument;
import org.netbeans.api.editor.EditorRegistry;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileChangeAdapter;
import org.openide.filesystems.FileChangeListener;
import org.openide.filesystems.FileEvent;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileRenameEvent;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.windows.TopComponent;

/**
 * Turns what the user does in NetBeans editors into engine events: which file has the focus, where
 * its caret is, what is selected, which files have unsaved changes, and which were closed, deleted,
 * renamed or moved. Only files on disk count. Listeners run on the EDT (the modified-files
 * registry's listener hops there) and only read the caret and selection; the engine debounces and
 * sends on its own thread.
 */
final class EditorTracker implements PropertyChangeListener, CaretListener {
  private static final Logger LOG = Logger.getLogger(EditorTracker.class.getName());

  /** More than the CLIs keep (10), so a closed file's neighbours keep their watchers. */
  private static final int WATCHED_FILES = 32;

  /** Far above what the CLIs keep, so nothing they would see is lost. */
  private static final int MAX_SELECTION_CHARS = 1 << 20;

  private final Consumer<EditorEvent> sink;
  private final PropertyChangeListener editorRegistryListener = this::editorRegistryChanged;

  /** Called on any thread that changes a file's modified state. */
  private final ChangeListener modifiedListener =
      e -> SwingUtilities.invokeLater(this::reportModified);

  /** The files last reported dirty. */
  private final Set<Path> dirty = new HashSet<>();

  /** Files that were focused, most recent last, with the path they were reported under. */
  private final Map<FileObject, Watch> watched = new LinkedHashMap<>(16, 0.75f, true);

  private JTextComponent current;
  private Path currentPath;
  private int lastDot = -1;
  private int lastMark = -1;
  private int lastLine = -1;
  private int lastCharacter = -1;
  private String lastSelection;

  EditorTracker(Consumer<EditorEvent> sink) {
    this.sink = sink;
  }

  void attach() {
    EventQueue.invokeLater(
        () -> {
          EditorRegistry.addPropertyChangeListener(editorRegistryListener);
          TopComponent.getRegistry().addPropertyChangeListener(this);
          DataObject.getRegistry().addChangeListener(modifiedListener);
          replayOnEdt();
        });
  }

  void detach() {
    EventQueue.invokeLater(
        () -> {
          EditorRegistry.removePropertyChangeListener(editorRegistryListener);
          TopComponent.getRegistry().removePropertyChangeListener(this);
          DataObject.getRegistry().removeChangeListener(modifiedListener);
          track(null);
          new ArrayList<>(watched.keySet()).forEach(this::unwatch);
        });
  }

  /**
   * Checks the diagnostics of every open file again, after files they may depend on changed behind
   * their backs (a check follows only a file's own edits), waiting at most {@code wait} for the EDT
   * and the checks. Never call it on the EDT.
   */
  void recheckDiagnostics(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    CompletableFuture<List<DiagnosticsWatch>> open = new CompletableFuture<>();
    EventQueue.invokeLater(
        () ->
            open.complete(
                watched.values().stream()
                    .map(w -> w.diagnostics)
                    .filter(Objects::nonNull)
                    .toList()));
    try {
      for (DiagnosticsWatch w : open.get(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        w.recheck(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.log(Level.INFO, "The open files' diagnostics were not checked again in time", e);
    }
  }

  /** Tells a fresh engine about the open editors, least recently used first, and the caret. */
  void replay() {
    EventQueue.invokeLater(this::replayOnEdt);
  }

  private void replayOnEdt() {
    List<? extends JTextComponent> recent = new ArrayList<>(EditorRegistry.componentList());
    Collections.reverse(recent);
    for (JTextComponent c : recent) {
      Path p = pathOf(c.getDocument());
      if (p != null) {
        sink.accept(new EditorEvent.FileFocused(p));
        watch(c.getDocument(), p);
      }
    }
    JTextComponent focused = current != null ? current : EditorRegistry.lastFocusedComponent();
    current = null;
    track(focused);
    dirty.clear();
    reportModified();
  }

  /** Reports the files whose unsaved state changed since last time. */
  private void reportModified() {
    Set<Path> now = new HashSet<>();
    for (DataObject data : DataObject.getRegistry().getModifiedSet()) {
      File file = FileUtil.toFile(data.getPrimaryFile());
      if (file != null) {
        now.add(file.toPath());
      }
    }
    for (Path saved : new ArrayList<>(dirty)) {
      if (!now.contains(saved)) {
        dirty.remove(saved);
        sink.accept(new EditorEvent.DirtyChanged(saved, false));
      }
    }
    for (Path edited : now) {
      if (dirty.add(edited)) {
        sink.accept(new EditorEvent.DirtyChanged(edited, true));
      }
    }
  }

  private void editorRegistryChanged(PropertyChangeEvent e) {
    switch (e.getPropertyName()) {
      case EditorRegistry.FOCUS_GAINED_PROPERTY -> track((JTextComponent) e.getNewValue());
      case EditorRegistry.FOCUSED_DOCUMENT_PROPERTY -> {
        if (current != null && current.getDocument() == e.getNewValue()) {
          JTextComponent c = current;
          current = null;
          track(c);
        }
      }
      default -> {}
    }
  }

  /** The window system: activating an editor tab focuses its file even without keyboard focus. */
  @Override
  public void propertyChange(PropertyChangeEvent e) {
    if (TopComponent.Registry.PROP_ACTIVATED.equals(e.getPropertyName())) {
      TopComponent tc = TopComponent.getRegistry().getActivated();
      JTextComponent pane = paneOf(tc);
      if (pane != null) {
        track(pane);
      }
    } else if (TopComponent.Registry.PROP_TC_CLOSED.equals(e.getPropertyName())
        && e.getNewValue() instanceof TopComponent tc) {
      closed(tc);
    }
  }

  @Override
  public void caretUpdate(CaretEvent e) {
    if (e.getSource() == current) {
      reportCaret();
    }
  }

  private void track(JTextComponent c) {
    Path path = c == null ? null : pathOf(c.getDocument());
    if (c != null && path == null) {
      // Output, diff and other non-file text: the last file the user edited stays the active one.
      return;
    }
    if (c == current && path != null && path.equals(currentPath)) {
      return;
    }
    if (current != null) {
      current.removeCaretListener(this);
    }
    current = c;
    currentPath = path;
    lastDot = -1;
    lastMark = -1;
    lastLine = -1;
    lastCharacter = -1;
    lastSelection = null;
    if (c == null) {
      return;
    }
    c.addCaretListener(this);
    watch(c.getDocument(), path);
    sink.accept(new EditorEvent.FileFocused(path));
    reportCaret();
  }

  private void reportCaret() {
    JTextComponent c = current;
    Path path = currentPath;
    if (c == null || path == null) {
      return;
    }
    Document doc = c.getDocument();
    int[] position = new int[2];
    String[] selection = new String[1];
    TextRange[] range = new TextRange[1];
    doc.render(
        () -> {
          int length = doc.getLength();
          int dot = Math.min(c.getCaret().getDot(), length);
          int mark = Math.min(c.getCaret().getMark(), length);
          Element root = doc.getDefaultRootElement();
          int line = root.getElementIndex(dot);
          position[0] = line + 1;
          position[1] = dot - root.getElement(line).getStartOffset() + 1;
          if (dot != lastDot || mark != lastMark) {
            lastDot = dot;
            lastMark = mark;
            int start = Math.min(dot, mark);
            range[0] =
                new TextRange(
                    lineOf(root, start),
                    characterOf(root, start),
                    lineOf(root, Math.max(dot, mark)),
                    characterOf(root, Math.max(dot, mark)));
            try {
              // The CLIs keep 16 KB of a selection; copying megabytes per caret move would stall
              // typing.
              selection[0] =
                  doc.getText(start, Math.min(Math.abs(dot - mark), MAX_SELECTION_CHARS));
            } catch (BadLocationException e) {
              selection[0] = "";
            }
          }
        });
    if (position[0] != lastLine || position[1] != lastCharacter) {
      lastLine = position[0];
      lastCharacter = position[1];
      sink.accept(new EditorEvent.CursorMoved(path, position[0], position[1]));
    }
    if (selection[0] != null && !selection[0].equals(lastSelection)) {
      lastSelection = selection[0];
      sink.accept(
          new EditorEvent.SelectionChanged(
              path, selection[0], selection[0].isEmpty() ? null : range[0]));
    }
  }

  private static int lineOf(Element root, int offset) {
    return root.getElementIndex(offset) + 1;
  }

  private static int characterOf(Element root, int offset) {
    return offset - root.getElement(root.getElementIndex(offset)).getStartOffset() + 1;
  }

  private void closed(TopComponent tc) {
    DataObject data = tc.getLookup().lookup(DataObject.class);
    if (data == null || !data.isValid()) {
      return;
    }
    for (TopComponent open : TopComponent.getRegistry().getOpened()) {
      if (open != tc && open.getLookup().lookup(DataObject.class) == data) {
        return;
      }
    }
    File file = FileUtil.toFile(data.getPrimaryFile());
    if (file == null) {
      return;
    }
    Path path = file.toPath();
    if (path.equals(currentPath)) {
      current.removeCaretListener(this);
      current = null;
      currentPath = null;
    }
    sink.accept(new EditorEvent.FileClosed(path));
    unwatch(data.getPrimaryFile());
  }

  private void watch(Document doc, Path path) {
    DataObject data = dataObjectOf(doc);
    if (data == null) {
      return;
    }
    FileObject fo = data.getPrimaryFile();
    if (watched.containsKey(fo)) {
      watched.get(fo).path = path;
      return;
    }
    Watch w = new Watch(data, fo, path);
    if (doc instanceof StyledDocument text) {
      w.diagnostics = DiagnosticsWatch.start(fo, () -> w.path, text, sink);
    }
    watched.put(fo, w);
    fo.addFileChangeListener(w.fileListener);
    data.addPropertyChangeListener(w.dataListener);
    while (watched.size() > WATCHED_FILES) {
      unwatch(watched.keySet().iterator().next());
    }
  }

  private void unwatch(FileObject fo) {
    Watch w = watched.remove(fo);
    if (w != null) {
      w.file.removeFileChangeListener(w.fileListener);
      w.data.removePropertyChangeListener(w.dataListener);
      if (w.diagnostics != null) {
        w.diagnostics.stop();
      }
    }
  }

  /** Called from file-system threads; hops to the EDT, where the tracker's state lives. */
  private void renamed(Watch w, FileObject now) {
    File file = FileUtil.toFile(now);
    if (file == null) {
      return;
    }
    Path to = file.toPath();
    SwingUtilities.invokeLater(
        () -> {
          Path from = w.path;
          if (from.equals(to)) {
            return;
          }
          w.path = to;
          if (from.equals(currentPath)) {
            currentPath = to;
          }
          if (w.file != now) {
            watched.remove(w.file);
            w.file.removeFileChangeListener(w.fileListener);
            w.file = now;
            watched.put(now, w);
            now.addFileChangeListener(w.fileListener);
          }
          sink.accept(new EditorEvent.FileRenamed(from, to));
        });
  }

  private void deleted(Watch w) {
    SwingUtilities.invokeLater(
        () -> {
          // A move is a delete followed by the data object's new primary file; only report real
          // deletes.
          if (w.data.isValid() && w.data.getPrimaryFile() != w.file) {
            return;
          }
          unwatch(w.file);
          if (w.path.equals(currentPath)) {
            current.removeCaretListener(this);
            current = null;
            currentPath = null;
          }
          sink.accept(new EditorEvent.FileDeleted(w.path));
        });
  }

  private static JTextComponent paneOf(TopComponent tc) {
    if (tc == null) {
      return null;
    }
    EditorCookie editor = tc.getLookup().lookup(EditorCookie.class);
    if (editor == null) {
      return null;
    }
    JEditorPane[] panes = editor.getOpenedPanes();
    if (panes == null) {
      return null;
    }
    for (JEditorPane pane : panes) {
      if (SwingUtilities.isDescendingFrom(pane, tc)) {
        return pane;
      }
    }
    return null;
  }

  private static DataObject dataObjectOf(Document doc) {
    Object source = doc == null ? null : doc.getProperty(Document.StreamDescriptionProperty);
    return source instanceof DataObject d ? d : null;
  }

  /** The file on disk a document shows, or null for anything else (memory, archives, output). */
  static Path pathOf(Document doc) {
    DataObject data = dataObjectOf(doc);
    if (data == null || !data.isValid()) {
      return null;
    }
    File file = FileUtil.toFile(data.getPrimaryFile());
    return file == null ? null : file.toPath();
  }

  private final class Watch {
    final DataObject data;
    FileObject file;

    /** Changed on the EDT, read by the diagnostics check too. */
    volatile Path path;

    final FileChangeListener fileListener;
    final PropertyChangeListener dataListener;

    /** Null when the document is not styled text, which no error provider reads. */
    DiagnosticsWatch diagnostics;

    Watch(DataObject data, FileObject file, Path path) {
      this.data = data;
      this.file = file;
      this.path = path;
      this.fileListener =
          new FileChangeAdapter() {
            @Override
            public void fileRenamed(FileRenameEvent fe) {
              renamed(Watch.this, fe.getFile());
            }

            @Override
            public void fileDeleted(FileEvent fe) {
              deleted(Watch.this);
            }
          };
      this.dataListener =
          e -> {
            if (DataObject.PROP_PRIMARY_FILE.equals(e.getPropertyName())
                && e.getNewValue() instanceof FileObject moved) {
              renamed(Watch.this, moved);
            }
          };
    }
  }
}
