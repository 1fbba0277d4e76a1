package dev.companion4j.netbeans;

import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.nio.file.Path;
import javax.swing.text.BadLocationException;
import javax.swing.text.DefaultEditorKit;
import javax.swing.text.Document;
import org.netbeans.api.diff.Difference;
import org.netbeans.api.diff.StreamSource;
import org.openide.text.CloneableEditorSupport;
import org.openide.util.Lookup;
import org.openide.util.lookup.Lookups;

/**
 * The left side of a proposal's diff view: the file's text before the edit, in a document made
 * before the window opens, off the EDT. NetBeans' diff view shows a document its source offers as
 * it is; from a reader it would read the whole text into a new document on the EDT, which for a
 * file of thousands of lines holds the EDT for a tenth of a second and more.
 */
final class OriginalSource extends StreamSource {
  private final String name;
  private final String title;
  private final String mime;
  private final String text;
  private final Document document;

  private OriginalSource(String name, String title, String mime, String text, Document document) {
    this.name = name;
    this.title = title;
    this.mime = mime;
    this.text = text;
    this.document = document;
  }

  /** The text {@code diff} replaces, in a document of type {@code mime}; not on the EDT. */
  static OriginalSource of(PendingDiff diff, String mime) {
    return of(diff.path(), diff.isNewFile(), diff.originalContent(), mime);
  }

  /**
   * The text a change replaces in {@code file}, in a document of type {@code mime}; not on the EDT.
   */
  static OriginalSource of(PendingChange.File file, String mime) {
    return of(file.path(), !file.existed(), file.originalContent(), mime);
  }

  private static OriginalSource of(Path path, boolean isNew, String text, String mime) {
    Path file = path.getFileName();
    String name = file == null ? path.toString() : file.toString();
    String title = (isNew ? "New file: " : "On disk: ") + path;
    Document document = CloneableEditorSupport.getEditorKit(mime).createDefaultDocument();
    try {
      // Nobody else sees the document yet: no lock needed.
      document.insertString(0, ProposalDocument.withNewlines(text), null);
    } catch (BadLocationException e) {
      throw new IllegalStateException(e);
    }
    document.putProperty(
        DefaultEditorKit.EndOfLineStringProperty, ProposalDocument.lineSeparator(text));
    return new OriginalSource(name, title, mime, text, document);
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public String getTitle() {
    return title;
  }

  @Override
  public String getMIMEType() {
    return mime;
  }

  @Override
  public Reader createReader() {
    return new StringReader(text);
  }

  @Override
  public Writer createWriter(Difference[] conflicts) {
    return null;
  }

  @Override
  public Lookup getLookup() {
    return Lookups.fixed(document);
  }
}
