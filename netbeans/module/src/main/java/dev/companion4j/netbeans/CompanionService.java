package dev.companion4j.netbeans;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.discovery.DiscoveryTarget;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.awt.EventQueue;
import java.beans.PropertyChangeEvent;
import java.beans.PropertyChangeListener;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.swing.event.ChangeListener;
import org.netbeans.api.project.ui.OpenProjects;
import org.openide.util.ChangeSupport;
import org.openide.util.RequestProcessor;

/**
 * The one companion of this IDE: starts, restarts and stops the engine, feeds it the editor's
 * events and the open projects, and tells the status bar and options panel what it is doing.
 */
public final class CompanionService {
  private static final Logger LOG = Logger.getLogger(CompanionService.class.getName());
  private static final CompanionService INSTANCE = new CompanionService();

  /** Starting, stopping and rewriting discovery files touch the disk: never on the EDT. */
  private static final RequestProcessor RP = new RequestProcessor("Companion4J", 1);

  private final ChangeSupport changes = new ChangeSupport(this);
  private final EditorTracker editorTracker = new EditorTracker(this::editorEvent);
  private final PropertyChangeListener projectListener = this::projectsChanged;
  private final CompanionListener statusListener = new StatusListener();

  private volatile Companion companion;
  private volatile String failure;
  private boolean watching;

  private CompanionService() {}

  public static CompanionService getDefault() {
    return INSTANCE;
  }

  /** Starts the companion in the background; does nothing if it runs. */
  public void start() {
    RP.post(this::startNow);
  }

  /** Stops the companion and starts a new one, e.g. with changed settings. */
  public void restart() {
    RP.post(
        () -> {
          stopNow();
          startNow();
        });
  }

  /** Stops the companion and removes its discovery files before returning. */
  public void shutdown() {
    if (EventQueue.isDispatchThread()) {
      // Stopping waits for the EDT only while a diff is being shown, and then a few seconds at
      // most;
      // diff windows close after it, when the EDT gets to them. So stop here rather than behind
      // whatever RP has queued first.
      stopNow();
    } else {
      RequestProcessor.Task task = RP.post(this::stopNow);
      try {
        if (!task.waitFinished(TimeUnit.SECONDS.toMillis(10))) {
          LOG.warning("The companion did not stop within 10 s; stopping it from this thread");
          stopNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopNow();
      }
    }
    synchronized (this) {
      if (watching) {
        OpenProjects.getDefault().removePropertyChangeListener(projectListener);
        editorTracker.detach();
        watching = false;
      }
    }
  }

  /** The running companion, or null: the chat's ACP agent proposes its writes through it. */
  Companion companion() {
    return companion;
  }

  /** What the status bar and the status dialog show. */
  public Status status() {
    Companion c = companion;
    if (c == null || !c.isRunning()) {
      return new Status(false, -1, List.of(), List.of(), Map.of(), List.of(), "", failure);
    }
    return new Status(
        true,
        c.port(),
        c.clients(),
        c.pendingDiffs(),
        c.terminalEnvironment(),
        c.discoveryFiles(),
        c.workspacePath(),
        null);
  }

  public void addChangeListener(ChangeListener l) {
    changes.addChangeListener(l);
  }

  public void removeChangeListener(ChangeListener l) {
    changes.removeChangeListener(l);
  }

  private synchronized void startNow() {
    if (companion != null) {
      return;
    }
    Set<DiscoveryTarget> targets = CompanionSettings.targets();
    NetBeansHost host = new NetBeansHost(new DiffWindows(), editorTracker);
    // Libraries of the engine look up services through the context class loader; on the threads
    // the engine starts here, that must be this module's loader, which sees its libraries.
    Thread current = Thread.currentThread();
    ClassLoader previous = current.getContextClassLoader();
    current.setContextClassLoader(CompanionService.class.getClassLoader());
    try {
      Companion c =
          Companion.builder(host)
              .discoveryTargets(targets)
              .listener(statusListener)
              // The IDE tools for the chat's ACP agent (AgentChat).
              .mcpRoute(IdeToolsRoute.PATH, IdeToolsRoute.servlet(this::companion))
              .build();
      c.start();
      companion = c;
      failure = null;
    } catch (IOException | RuntimeException e) {
      failure = e.getMessage();
      LOG.log(Level.WARNING, "The Qwen Code / Gemini CLI companion could not start", e);
    } finally {
      current.setContextClassLoader(previous);
    }
    if (!watching) {
      watching = true;
      OpenProjects.getDefault().addPropertyChangeListener(projectListener);
      editorTracker.attach();
    } else {
      // A new engine knows nothing yet of what the editor shows.
      editorTracker.replay();
    }
    changes.fireChange();
  }

  private synchronized void stopNow() {
    Companion c = companion;
    companion = null;
    if (c != null) {
      c.close();
      changes.fireChange();
    }
  }

  private void editorEvent(EditorEvent event) {
    Companion c = companion;
    if (c != null) {
      c.editorEvent(event);
    }
  }

  private void projectsChanged(PropertyChangeEvent e) {
    if (OpenProjects.PROPERTY_OPEN_PROJECTS.equals(e.getPropertyName())) {
      RP.post(
          () -> {
            Companion c = companion;
            if (c == null) {
              return;
            }
            try {
              c.workspaceChanged();
            } catch (IOException ex) {
              LOG.log(Level.WARNING, "Could not rewrite the companion's discovery files", ex);
            }
            changes.fireChange();
          });
    }
  }

  /**
   * A snapshot of the companion.
   *
   * @param running whether it serves
   * @param port its loopback port, -1 when stopped
   * @param clients the CLIs connected now
   * @param pendingDiffs diffs waiting for the user
   * @param terminalEnvironment variables that pin a terminal's CLI to this IDE
   * @param discoveryFiles the files the CLIs find it by
   * @param workspacePath the roots as announced to the CLIs
   * @param failure why it is not running, or null
   */
  public record Status(
      boolean running,
      int port,
      List<ConnectedClient> clients,
      List<PendingDiff> pendingDiffs,
      Map<String, String> terminalEnvironment,
      List<Path> discoveryFiles,
      String workspacePath,
      String failure) {}

  private final class StatusListener implements CompanionListener {
    @Override
    public void clientConnected(ConnectedClient client) {
      changes.fireChange();
    }

    @Override
    public void clientDisconnected(ConnectedClient client) {
      changes.fireChange();
    }

    @Override
    public void diffOpened(PendingDiff diff) {
      changes.fireChange();
    }

    @Override
    public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
      changes.fireChange();
    }
  }
}
