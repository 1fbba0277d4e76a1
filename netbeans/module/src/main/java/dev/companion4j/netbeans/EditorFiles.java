package dev.companion4j.netbeans;

import dev.companion4j.acp.WorkspaceFiles;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiffOutcome;
import java.awt.EventQueue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.swing.text.BadLocationException;
import javax.swing.text.StyledDocument;
import org.openide.cookies.EditorCookie;
import org.openide.text.NbDocument;

/**
 * The ACP agent's file calls in NetBeans: a read gets the open document's text, unsaved edits
 * included, else the disk's; a write is a proposal in NetBeans' diff view ({@link
 * Companion#propose}) unless the session's mode lets the agent edit without asking, and what is
 * written goes into the open document (undoable), else to disk. The connection has confined the
 * path to the project roots before either is called.
 */
final class EditorFiles implements WorkspaceFiles {
  static final String REJECTED = "The user rejected the edit";

  /** The modes in which the agents edit without asking (Qwen Code's and Gemini CLI's names). */
  private static final Set<String> EDITS_WITHOUT_ASKING =
      Set.of("auto-edit", "autoEdit", "auto", "yolo");

  private final WorkspaceFiles disk = WorkspaceFiles.disk();
  private final Supplier<Companion> companion;
  private final String proposerName;
  private final Supplier<String> mode;

  /**
   * @param companion the IDE's companion now, null while it does not run
   * @param mode the session's mode now; empty or unknown asks
   */
  EditorFiles(Supplier<Companion> companion, String proposerName, Supplier<String> mode) {
    this.companion = companion;
    this.proposerName = proposerName;
    this.mode = mode;
  }

  @Override
  public String read(Path file) throws IOException {
    StyledDocument open = openDocument(file);
    if (open == null) {
      return Files.readString(file, StandardCharsets.UTF_8);
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

  @Override
  public CompletionStage<Void> write(Path file, String text) {
    if (EDITS_WITHOUT_ASKING.contains(mode.get())) {
      return store(file, text);
    }
    Companion reviewer = companion.get();
    if (reviewer == null || !reviewer.isRunning()) {
      return refused("The IDE's companion is not running, so the edit cannot be reviewed");
    }
    return reviewer
        .propose(proposerName, file, text)
        .thenCompose(
            outcome ->
                outcome instanceof DiffOutcome.Accepted accepted
                    ? store(file, accepted.content())
                    : refused(why(outcome)));
  }

  /** Into the open document as one undoable edit, on the EDT; else to disk. */
  private CompletionStage<Void> store(Path file, String text) {
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

  private static String why(DiffOutcome outcome) {
    if (outcome instanceof DiffOutcome.Rejected) {
      return REJECTED;
    }
    if (outcome instanceof DiffOutcome.Replaced) {
      return "The edit was replaced by a newer proposal for the same file";
    }
    if (outcome instanceof DiffOutcome.Stopped) {
      return "The companion stopped before the user answered";
    }
    return "The edit ended unanswered";
  }

  private static CompletableFuture<Void> refused(String why) {
    return CompletableFuture.failedFuture(new IOException(why));
  }
}
