package dev.companion4j.netbeans;

import dev.companion4j.acp.WorkspaceFiles;
import java.awt.EventQueue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import javax.swing.text.BadLocationException;
import javax.swing.text.StyledDocument;
import org.openide.cookies.EditorCookie;
import org.openide.text.NbDocument;

/**
 * Where the ACP agent's file calls meet NetBeans: a read gets the open document's text, unsaved
 * edits included, else the disk's; a write goes into the open document (one undoable edit), else to
 * disk. {@link dev.companion4j.acp.ReviewedFiles} puts the user's review in front of the writes;
 * the connection has confined the path to the project roots before either is called.
 */
final class EditorFiles implements WorkspaceFiles {
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
    if (open == null) {
      return disk.write(file, text);
    }
    CompletableFuture<Void> written = new CompletableFuture<>();
    EventQueue.invokeLater(
        () -> {
          try {
            NbDocument.runAtomicAsUser(
                open,
                () -> {
                  try {
                    open.remove(0, open.getLength());
                    open.insertString(0, text, null);
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
