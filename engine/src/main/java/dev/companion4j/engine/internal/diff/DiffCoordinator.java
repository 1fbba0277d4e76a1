package dev.companion4j.engine.internal.diff;

import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.PendingDiff;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The diffs in review: opened by CLIs, shown by the host, answered by the user. Outcomes go to
 * the CLI session that asked, and only to it. The engine never writes the user's file: the CLI
 * writes what was accepted.
 */
public final class DiffCoordinator {
  private static final Logger log = LoggerFactory.getLogger(DiffCoordinator.class);

  /** Sends a notification to one CLI session. */
  public interface Notifier {
    void notify(String sessionId, String method, Map<String, Object> params);
  }

  /** Why a request could not be served; the message goes to the CLI verbatim. */
  public static final class DiffRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    public DiffRequestException(String message) {
      super(message);
    }
  }

  private final CompanionHost host;
  private final Supplier<List<Path>> roots;
  private final Notifier notifier;
  private final List<CompanionListener> listeners;
  private final Clock clock;
  private final Map<String, PendingDiff> pending = new LinkedHashMap<>();
  private final ReviewedFiles files = new ReviewedFiles();

  public DiffCoordinator(
      CompanionHost host,
      Supplier<List<Path>> roots,
      Notifier notifier,
      List<CompanionListener> listeners,
      Clock clock) {
    this.host = host;
    this.roots = roots;
    this.notifier = notifier;
    this.listeners = listeners;
    this.clock = clock;
  }

  /** Handles the {@code openDiff} tool. */
  public void open(String sessionId, String filePath, String newContent) throws DiffRequestException {
    Path path = validatePath(filePath);
    String original = files.readOriginal(path, filePath, realRoots());
    PendingDiff diff = new PendingDiff(filePath, path, original, newContent, clock.instant(), sessionId);
    PendingDiff replaced = take(filePath);
    if (replaced != null) {
      finishQuietly(replaced, new DiffOutcome.Replaced());
      if (!replaced.clientId().equals(sessionId)) {
        // Another CLI is still waiting for an answer to its proposal; tell it no.
        notifier.notify(replaced.clientId(), "ide/diffRejected", Map.of("filePath", filePath));
      }
    }
    synchronized (this) {
      pending.put(filePath, diff);
    }
    try {
      host.showDiff(diff);
    } catch (DiffViewException | RuntimeException e) {
      synchronized (this) {
        pending.remove(filePath, diff);
      }
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new DiffRequestException("The editor could not show the diff for " + filePath + ": " + reason);
    }
    listeners.forEach(l -> l.diffOpened(diff));
  }

  /**
   * Handles the {@code closeDiff} tool.
   *
   * @return the proposed side's final text, or empty when no diff was open for the path
   */
  public Optional<String> close(String filePath, boolean suppressNotification) throws DiffRequestException {
    validatePath(filePath);
    PendingDiff diff = take(filePath);
    if (diff == null) {
      return Optional.empty();
    }
    String content = host.closeDiff(diff).orElse(diff.newContent());
    listeners.forEach(l -> l.diffClosed(diff, new DiffOutcome.ClosedByClient(content)));
    if (!suppressNotification) {
      notifier.notify(diff.clientId(), "ide/diffRejected", Map.of("filePath", filePath));
    }
    return Optional.of(content);
  }

  /** The user accepted; {@code content} is what the CLI should write. */
  public boolean accept(String filePath, String content) {
    PendingDiff diff = take(filePath);
    if (diff == null) {
      return false;
    }
    String finalContent = content == null ? diff.newContent() : content;
    listeners.forEach(l -> l.diffClosed(diff, new DiffOutcome.Accepted(finalContent)));
    notifier.notify(diff.clientId(), "ide/diffAccepted", Map.of("filePath", filePath, "content", finalContent));
    return true;
  }

  /** The user rejected. */
  public boolean reject(String filePath) {
    PendingDiff diff = take(filePath);
    if (diff == null) {
      return false;
    }
    listeners.forEach(l -> l.diffClosed(diff, new DiffOutcome.Rejected()));
    notifier.notify(diff.clientId(), "ide/diffRejected", Map.of("filePath", filePath));
    return true;
  }

  /** A CLI went away: its diffs close with it, and nobody is told. */
  public void clientGone(String sessionId) {
    List<PendingDiff> gone = new ArrayList<>();
    synchronized (this) {
      pending.values().removeIf(d -> d.clientId().equals(sessionId) && gone.add(d));
    }
    gone.forEach(d -> finishQuietly(d, new DiffOutcome.ClientGone()));
  }

  /** Closes every diff, e.g. on shutdown. */
  public void closeAll() {
    List<PendingDiff> all;
    synchronized (this) {
      all = new ArrayList<>(pending.values());
      pending.clear();
    }
    all.forEach(d -> finishQuietly(d, new DiffOutcome.ClientGone()));
  }

  public synchronized List<PendingDiff> pending() {
    return List.copyOf(pending.values());
  }

  public synchronized Optional<PendingDiff> get(String filePath) {
    return Optional.ofNullable(pending.get(filePath));
  }

  private synchronized PendingDiff take(String filePath) {
    return pending.remove(filePath);
  }

  private void finishQuietly(PendingDiff diff, DiffOutcome outcome) {
    try {
      host.closeDiff(diff);
    } catch (RuntimeException e) {
      log.warn("The editor failed to close the diff for {}: {}", diff.filePath(), e.toString());
    }
    listeners.forEach(l -> l.diffClosed(diff, outcome));
  }

  private Path validatePath(String filePath) throws DiffRequestException {
    if (filePath == null || filePath.isBlank()) {
      throw new DiffRequestException("filePath is required");
    }
    Path path;
    try {
      path = Path.of(filePath);
    } catch (RuntimeException e) {
      throw new DiffRequestException("filePath is not a valid path: " + filePath);
    }
    if (!path.isAbsolute()) {
      throw new DiffRequestException("filePath must be absolute: " + filePath);
    }
    Path normal = path.normalize();
    if (roots.get().stream().noneMatch(root -> inside(normal, root))) {
      throw new DiffRequestException("filePath is outside every workspace root: " + filePath);
    }
    return normal;
  }

  private static boolean inside(Path path, Path root) {
    Path r = root.toAbsolutePath().normalize();
    if (path.startsWith(r)) {
      return true;
    }
    // The CLI resolves symlinks; a root behind a symlink must still match.
    try {
      return path.startsWith(r.toRealPath());
    } catch (IOException e) {
      return false;
    }
  }

  private List<Path> realRoots() {
    return roots.get().stream().map(DiffCoordinator::real).toList();
  }

  private static Path real(Path root) {
    Path r = root.toAbsolutePath().normalize();
    try {
      return r.toRealPath();
    } catch (IOException e) {
      return r;
    }
  }
}
