package dev.companion4j.netbeans;

import dev.companion4j.acp.WorkspaceFiles;
import java.awt.EventQueue;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.swing.text.BadLocationException;
import javax.swing.text.StyledDocument;
import org.netbeans.api.queries.FileEncodingQuery;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.text.NbDocument;

/**
 * Where the ACP agent's file calls meet NetBeans: a read gets the open document's text, unsaved
 * edits included, else the disk's; a write goes into the open document (one undoable edit), else to
 * disk. {@link dev.companion4j.acp.ReviewedFiles} puts the user's review in front of the writes;
 * the connection has confined the path to the project roots before either is called. Also writes
 * the files of an accepted change ({@link #save}).
 */
final class EditorFiles implements WorkspaceFiles {
  /** The longest a file's write waits for the EDT: it may be busy, or waiting for the companion. */
  private static final long EDT_WAIT_SECONDS = 10;

  private final WorkspaceFiles disk = WorkspaceFiles.disk();

  @Override
  public String read(Path file) throws IOException {
    StyledDocument open = openDocument(file);
    if (open == null) {
      return disk.read(file);
    }
    AtomicReference<String> text = new AtomicReference<>();
    open.render(
        () -> {
          try {
            text.set(open.getText(0, open.getLength()));
          } catch (BadLocationException e) {
            throw new IllegalStateException(e);
          }
        });
    return text.get();
  }

  /** Into the open document as one undoable edit, on the EDT; else to disk. */
  @Override
  public CompletionStage<Void> write(Path file, String text) {
    StyledDocument open = openDocument(file);
    return open == null ? disk.write(file, text) : replace(open, file, text);
  }

  /**
   * Writes {@code text} as the saved text of {@code file}: into its document when NetBeans has one
   * loaded (shown in an editor or not) as one undoable edit, then saved; else through NetBeans'
   * file system in the file's encoding. Either way no editor keeps a stale text. Blocks, bounded;
   * never call it on the EDT.
   */
  static void save(Path file, String text) throws IOException {
    FileObject fo = FileUtil.toFileObject(FileUtil.normalizeFile(file.toFile()));
    if (fo == null || !fo.isData()) {
      throw new IOException("no such file");
    }
    EditorCookie editor = DataObject.find(fo).getLookup().lookup(EditorCookie.class);
    StyledDocument loaded = editor == null ? null : editor.getDocument();
    if (loaded == null) {
      // The disk may have moved on since NetBeans last looked; its file system refuses a stale
      // write.
      fo.refresh();
      try (OutputStream out = fo.getOutputStream()) {
        out.write(text.getBytes(FileEncodingQuery.getEncoding(fo)));
      }
      return;
    }
    try {
      replace(loaded, file, text).get(EDT_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("the editor did not take the text within " + EDT_WAIT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    editor.saveDocument();
  }

  /**
   * Makes {@code doc}'s text {@code text} as one undoable edit on the EDT, replacing only the part
   * that differs so that the caret and marks elsewhere stay where they were.
   */
  private static CompletableFuture<Void> replace(StyledDocument doc, Path file, String text) {
    CompletableFuture<Void> written = new CompletableFuture<>();
    EventQueue.invokeLater(
        () -> {
          try {
            NbDocument.runAtomicAsUser(
                doc,
                () -> {
                  try {
                    String old = doc.getText(0, doc.getLength());
                    int limit = Math.min(old.length(), text.length());
                    int prefix = 0;
                    while (prefix < limit && old.charAt(prefix) == text.charAt(prefix)) {
                      prefix++;
                    }
                    int suffix = 0;
                    while (suffix < limit - prefix
                        && old.charAt(old.length() - 1 - suffix)
                            == text.charAt(text.length() - 1 - suffix)) {
                      suffix++;
                    }
                    doc.remove(prefix, old.length() - prefix - suffix);
                    doc.insertString(prefix, text.substring(prefix, text.length() - suffix), null);
                  } catch (BadLocationException e) {
                    throw new IllegalStateException(e);
                  }
                });
            written.complete(null);
          } catch (BadLocationException | RuntimeException e) {
            written.completeExceptionally(
                new IOException("NetBeans could not change " + file.getFileName(), e));
          }
        });
    return written;
  }

  /** The document of {@code file} when it is open in an editor; null otherwise. */
  private static StyledDocument openDocument(Path file) {
    EditorCookie editor = DiffWindows.editorOf(file);
    return editor == null ? null : editor.getDocument();
  }
}
