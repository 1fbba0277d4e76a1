package dev.companion4j.netbeans;

import dev.companion4j.engine.Diagnostic;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.TextRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;
import javax.swing.text.StyledDocument;
import org.netbeans.api.editor.mimelookup.MimeLookup;
import org.netbeans.spi.lsp.ErrorProvider;
import org.openide.filesystems.FileObject;
import org.openide.text.NbDocument;
import org.openide.util.RequestProcessor;

/**
 * The errors and warnings of one open file, from the {@link ErrorProvider}s NetBeans has for its
 * MIME type (Java's comes with the Java support, others with their languages' modules): computed
 * when the watch starts and again after each edit, once typing pauses, from the document's text,
 * saved or not. Computing parses, so it runs on a RequestProcessor of its own, never on the EDT; a
 * changed list goes to the sink from there.
 */
final class DiagnosticsWatch {
  private static final Logger LOG = Logger.getLogger(DiagnosticsWatch.class.getName());
  private static final RequestProcessor RP = new RequestProcessor("Companion4J diagnostics", 1);

  /** How long typing must pause before the file is checked again. */
  private static final int SETTLE_MILLIS = 500;

  private final FileObject file;

  /** Where the file is now: renames and moves change it. */
  private final Supplier<Path> path;

  private final StyledDocument doc;
  private final Consumer<EditorEvent> sink;
  private final RequestProcessor.Task check;
  private final DocumentListener edits =
      new DocumentListener() {
        @Override
        public void insertUpdate(DocumentEvent e) {
          check.schedule(SETTLE_MILLIS);
        }

        @Override
        public void removeUpdate(DocumentEvent e) {
          check.schedule(SETTLE_MILLIS);
        }

        @Override
        public void changedUpdate(DocumentEvent e) {
          // Attribute changes (highlighting) change no text.
        }
      };
  private List<Diagnostic> last;

  /** A check that was running when the file closed must not bring its diagnostics back. */
  private volatile boolean stopped;

  private DiagnosticsWatch(
      FileObject file, Supplier<Path> path, StyledDocument doc, Consumer<EditorEvent> sink) {
    this.file = file;
    this.path = path;
    this.doc = doc;
    this.sink = sink;
    this.check = RP.create(this::check);
  }

  /**
   * Starts watching {@code doc}, the open document of {@code file}; the first check runs at once.
   */
  static DiagnosticsWatch start(
      FileObject file, Supplier<Path> path, StyledDocument doc, Consumer<EditorEvent> sink) {
    DiagnosticsWatch watch = new DiagnosticsWatch(file, path, doc, sink);
    doc.addDocumentListener(watch.edits);
    watch.check.schedule(0);
    return watch;
  }

  /**
   * Checks again now, e.g. after other files it may depend on changed, and waits for the check at
   * most {@code millis}.
   */
  void recheck(long millis) throws InterruptedException {
    check.schedule(0);
    check.waitFinished(millis);
  }

  void stop() {
    stopped = true;
    doc.removeDocumentListener(edits);
    check.cancel();
  }

  private void check() {
    try {
      List<Diagnostic> now = compute();
      if (!now.equals(last) && !stopped) {
        last = now;
        sink.accept(new EditorEvent.DiagnosticsChanged(path.get(), now));
      }
    } catch (RuntimeException e) {
      LOG.log(Level.INFO, "Could not compute the diagnostics of " + path.get(), e);
    }
  }

  /** The compiler's errors and warnings; hints are left out, being advice rather than problems. */
  private List<Diagnostic> compute() {
    List<Diagnostic> found = new ArrayList<>();
    for (ErrorProvider provider :
        MimeLookup.getLookup(file.getMIMEType()).lookupAll(ErrorProvider.class)) {
      List<? extends org.netbeans.api.lsp.Diagnostic> errors =
          provider.computeErrors(new ErrorProvider.Context(file, ErrorProvider.Kind.ERRORS));
      if (errors == null) {
        continue;
      }
      // The positions follow the document: read them under its lock, all at once.
      doc.render(
          () -> {
            for (org.netbeans.api.lsp.Diagnostic d : errors) {
              int start = Math.min(d.getStartPosition().getOffset(), doc.getLength());
              int end = Math.max(start, Math.min(d.getEndPosition().getOffset(), doc.getLength()));
              found.add(
                  new Diagnostic(
                      new TextRange(
                          NbDocument.findLineNumber(doc, start) + 1,
                              NbDocument.findLineColumn(doc, start) + 1,
                          NbDocument.findLineNumber(doc, end) + 1,
                              NbDocument.findLineColumn(doc, end) + 1),
                      severity(d.getSeverity()),
                      d.getDescription() == null || d.getDescription().isBlank()
                          ? "(no message)"
                          : d.getDescription(),
                      "compiler"));
            }
          });
    }
    return found;
  }

  private static Diagnostic.Severity severity(org.netbeans.api.lsp.Diagnostic.Severity severity) {
    if (severity == null) {
      return Diagnostic.Severity.ERROR;
    }
    return switch (severity) {
      case Error -> Diagnostic.Severity.ERROR;
      case Warning -> Diagnostic.Severity.WARNING;
      case Information -> Diagnostic.Severity.INFORMATION;
      case Hint -> Diagnostic.Severity.HINT;
    };
  }
}
