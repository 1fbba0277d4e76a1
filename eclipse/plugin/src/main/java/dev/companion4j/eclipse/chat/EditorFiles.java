package dev.companion4j.eclipse.chat;

import dev.companion4j.acp.WorkspaceFiles;
import dev.companion4j.eclipse.UiThread;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.eclipse.core.filebuffers.FileBuffers;
import org.eclipse.core.filebuffers.ITextFileBuffer;
import org.eclipse.core.filebuffers.LocationKind;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.IDocument;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

/**
 * Where the ACP agent's file calls meet Eclipse: a read gets the text of the file's open buffer (an
 * editor's, unsaved edits included), else the disk's; a write goes into that buffer (unsaved, as a
 * user's edit would be), else to disk, after which the workspace is refreshed so that Eclipse does
 * not call the file out of sync. {@link dev.companion4j.acp.ReviewedFiles} puts the review in the
 * compare editor in front of the writes; the connection has confined the path to the roots.
 *
 * <p>Called on the agent's threads, or on the UI thread when the user's Accept stores the text.
 */
final class EditorFiles implements WorkspaceFiles {
  /** The longest a call waits for the UI thread: it may be busy, or waiting for the companion. */
  private static final Duration UI_WAIT = Duration.ofSeconds(10);

  private final WorkspaceFiles disk = WorkspaceFiles.disk();

  @Override
  public String read(Path file) throws IOException {
    IDocument open = onUiThread(() -> openDocument(file));
    return open == null ? disk.read(file) : onUiThread(open::get);
  }

  @Override
  public CompletionStage<Void> write(Path file, String text) {
    try {
      IDocument open = onUiThread(() -> openDocument(file));
      if (open != null) {
        onUiThread(
            () -> {
              replace(open, text);
              return null;
            });
        return CompletableFuture.completedFuture(null);
      }
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return disk.write(file, text).thenRun(() -> refresh(file));
  }

  /** The document of the file's connected buffer (an open editor's), or null; on the UI thread. */
  private static IDocument openDocument(Path file) {
    for (IFile f : ResourcesPlugin.getWorkspace().getRoot().findFilesForLocationURI(file.toUri())) {
      ITextFileBuffer buffer =
          FileBuffers.getTextFileBufferManager()
              .getTextFileBuffer(f.getFullPath(), LocationKind.IFILE);
      if (buffer != null) {
        return buffer.getDocument();
      }
    }
    return null;
  }

  /** Replaces only the part that differs, so that the caret and marks elsewhere stay put. */
  private static void replace(IDocument doc, String text) throws BadLocationException {
    String old = doc.get();
    int limit = Math.min(old.length(), text.length());
    int prefix = 0;
    while (prefix < limit && old.charAt(prefix) == text.charAt(prefix)) {
      prefix++;
    }
    int suffix = 0;
    while (suffix < limit - prefix
        && old.charAt(old.length() - 1 - suffix) == text.charAt(text.length() - 1 - suffix)) {
      suffix++;
    }
    doc.replace(
        prefix, old.length() - suffix - prefix, text.substring(prefix, text.length() - suffix));
  }

  /** Tells the workspace of a file written behind its back, in a job: refreshing takes its lock. */
  private static void refresh(Path file) {
    IFile[] files = ResourcesPlugin.getWorkspace().getRoot().findFilesForLocationURI(file.toUri());
    if (files.length == 0) {
      return;
    }
    Job.create(
            "Refresh " + file.getFileName(),
            monitor -> {
              try {
                for (IFile f : files) {
                  f.refreshLocal(IResource.DEPTH_ZERO, monitor);
                }
                return Status.OK_STATUS;
              } catch (CoreException e) {
                return e.getStatus();
              }
            })
        .schedule();
  }

  /** Runs {@code work} on the UI thread, at once when called there (the user's Accept). */
  private static <T> T onUiThread(UiWork<T> work) throws IOException {
    Display display = PlatformUI.getWorkbench().getDisplay();
    try {
      if (Display.getCurrent() == display) {
        return work.run();
      }
      return UiThread.call(display, UI_WAIT, work::run);
    } catch (ExecutionException e) {
      throw new IOException("the editor could not take it: " + e.getCause().getMessage(), e);
    } catch (TimeoutException e) {
      throw new IOException("the editor did not answer within " + UI_WAIT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (BadLocationException e) {
      throw new IOException("the editor could not take it: " + e.getMessage(), e);
    }
  }

  private interface UiWork<T> {
    T run() throws BadLocationException;
  }
}
