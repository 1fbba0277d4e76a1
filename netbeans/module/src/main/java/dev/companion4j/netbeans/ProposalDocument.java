package dev.companion4j.netbeans;

import dev.companion4j.engine.PendingDiff;
import java.beans.PropertyChangeListener;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import javax.swing.text.BadLocationException;
import javax.swing.text.DefaultEditorKit;
import javax.swing.text.StyledDocument;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.util.RequestProcessor;

/**
 * The right side of a diff: the CLI's proposal in an editable document of its own. It lives on a
 * private in-memory file system, so editing it never touches the user's file (the CLI writes what
 * is accepted), and the diff API makes a side editable only when it comes from a data object.
 */
final class ProposalDocument {
  private static final RequestProcessor RP = new RequestProcessor(ProposalDocument.class);

  private final FileObject file;
  private final DataObject data;
  private final StyledDocument document;
  private final PropertyChangeListener keepUnmodified;

  private ProposalDocument(FileObject file, DataObject data, StyledDocument document) {
    this.file = file;
    this.data = data;
    this.document = document;
    // The proposal is not a file to save: keep it out of "Save All" and the exit dialog.
    this.keepUnmodified =
        e -> {
          if (DataObject.PROP_MODIFIED.equals(e.getPropertyName()) && data.isModified()) {
            RP.post(() -> data.setModified(false));
          }
        };
    data.addPropertyChangeListener(keepUnmodified);
  }

  static ProposalDocument create(PendingDiff diff) throws IOException {
    return create(diff.path(), diff.newContent());
  }

  /** The proposed {@code text} for {@code path}, in a document of the path's type. */
  static ProposalDocument create(Path path, String text) throws IOException {
    FileObject root = FileUtil.createMemoryFileSystem().getRoot();
    Path name = path.getFileName();
    FileObject file = root.createData(name == null ? "proposal.txt" : name.toString());
    DataObject data = DataObject.find(file);
    EditorCookie editor = data.getLookup().lookup(EditorCookie.class);
    if (editor == null) {
      // A type NetBeans opens with something other than a text editor: review it as plain text.
      file = root.createData(file.getNameExt() + ".txt");
      data = DataObject.find(file);
      editor = data.getLookup().lookup(EditorCookie.class);
    }
    if (editor == null) {
      throw new IOException("NetBeans has no text editor for " + name);
    }
    StyledDocument document = editor.openDocument();
    String separator = lineSeparator(text);
    // Documents hold \n only; remember the proposal's separator to give it back on accept.
    String normalised = withNewlines(text);
    AtomicReference<BadLocationException> failed = new AtomicReference<>();
    org.openide.text.NbDocument.runAtomic(
        document,
        () -> {
          try {
            document.remove(0, document.getLength());
            document.insertString(0, normalised, null);
          } catch (BadLocationException e) {
            failed.set(e);
          }
        });
    if (failed.get() != null) {
      throw new IOException(failed.get());
    }
    document.putProperty(DefaultEditorKit.EndOfLineStringProperty, separator);
    data.setModified(false);
    return new ProposalDocument(file, data, document);
  }

  FileObject file() {
    return file;
  }

  String mimeType() {
    return file.getMIMEType();
  }

  /** The current text, with the proposal's line separators. Reads under the document's lock. */
  String text() {
    AtomicReference<String> text = new AtomicReference<>("");
    document.render(
        () -> {
          try {
            text.set(document.getText(0, document.getLength()));
          } catch (BadLocationException e) {
            throw new IllegalStateException(e);
          }
        });
    Object separator = document.getProperty(DefaultEditorKit.EndOfLineStringProperty);
    String result = text.get();
    if (separator instanceof String s && !"\n".equals(s)) {
      result = result.replace("\n", s);
    }
    return result;
  }

  void discard() {
    data.removePropertyChangeListener(keepUnmodified);
    data.setModified(false);
  }

  /** {@code text} with each line separator a \n, as documents hold it. */
  static String withNewlines(String text) {
    return text.replace("\r\n", "\n").replace('\r', '\n');
  }

  /** The line separator of {@code text}, to give back with it. */
  static String lineSeparator(String text) {
    int lf = text.indexOf('\n');
    if (lf > 0 && text.charAt(lf - 1) == '\r') {
      return "\r\n";
    }
    if (lf < 0 && text.indexOf('\r') >= 0) {
      return "\r";
    }
    return "\n";
  }
}
