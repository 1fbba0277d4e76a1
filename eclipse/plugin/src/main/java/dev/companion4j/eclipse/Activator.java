package dev.companion4j.eclipse;

import dev.companion4j.eclipse.chat.ChatService;
import dev.companion4j.eclipse.prefs.CompanionPreferences;
import dev.companion4j.eclipse.status.StatusFeed;
import dev.companion4j.eclipse.status.StatusSnapshot;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.DiffId;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchListener;
import org.eclipse.ui.PlatformUI;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * The plugin's life: owns the one companion of this workbench, from early startup until the bundle
 * stops. (When the JVM ends without stopping the bundles, on SIGTERM, the engine's own shutdown
 * hook removes the discovery files.)
 */
public final class Activator implements BundleActivator {
  /**
   * Set by scripts/run-eclipse.sh: print {@code {"event":"ready","port":N,"pid":P}} on standard
   * output once the companion serves, for the script's caller to wait on.
   */
  static final String READY_LINE_PROPERTY = "companion4j.eclipse.readyLine";

  private static volatile Activator instance;

  private final Object lock = new Object();
  private final IResourceChangeListener projectListener = this::projectsChanged;

  /** Restarts the companion off the UI thread; scheduling it again while it waits runs it once. */
  private final Job restart =
      Job.createSystem(
          "Restarting the CLI companion",
          monitor -> {
            stopCompanion();
            startCompanion();
          });

  /**
   * On the UI thread, once the workbench has closed (File > Exit): the companion has no IDE left to
   * serve, and the JVM may outlive the workbench (EclipseStarter's main keeps the framework).
   */
  private final IWorkbenchListener shutdownListener =
      new IWorkbenchListener() {
        @Override
        public boolean preShutdown(IWorkbench workbench, boolean forced) {
          return true;
        }

        @Override
        public void postShutdown(IWorkbench workbench) {
          stopCompanion();
        }
      };

  private ILog log;
  // Guarded by lock.
  private Companion companion;
  private EditorTracker tracker;
  // Written under lock; read without it on the UI thread, which must not wait for a start.
  private volatile EclipseHost host;
  private boolean announced;

  static Activator instance() {
    Activator a = instance;
    if (a == null) {
      throw new IllegalStateException("The Companion4J plugin is not active");
    }
    return a;
  }

  static ILog log() {
    return instance().log;
  }

  /** The running companion, for the chat's reviews and IDE tools; null while none runs. */
  public static Companion companion() {
    Activator a = instance;
    if (a == null) {
      return null;
    }
    synchronized (a.lock) {
      return a.companion;
    }
  }

  @Override
  public void start(BundleContext context) {
    log = Platform.getLog(context.getBundle());
    instance = this;
    // Settings the engine takes when it is built (discovery targets, cap) apply by a new one.
    CompanionPreferences.onChange(Activator::restartCompanion);
  }

  @Override
  public void stop(BundleContext context) {
    restart.cancel();
    ChatService.getDefault().shutdown();
    stopCompanion();
    instance = null;
  }

  void startCompanion() {
    synchronized (lock) {
      if (companion != null) {
        return;
      }
      // The engine's libraries (Jetty, Jackson) find their services through the context class
      // loader; on the threads the engine starts here it must be this bundle's, which sees lib/.
      Thread current = Thread.currentThread();
      ClassLoader previous = current.getContextClassLoader();
      current.setContextClassLoader(Activator.class.getClassLoader());
      IWorkbench workbench = PlatformUI.getWorkbench();
      try {
        EclipseHost h = new EclipseHost(workbench);
        Companion c =
            Companion.builder(h)
                .discoveryTargets(CompanionPreferences.targets())
                .maxClients(CompanionPreferences.maxClients())
                // The IDE tools for the chat's ACP agent (chat.AgentChat).
                .mcpRoute(IdeToolsRoute.PATH, IdeToolsRoute.servlet(Activator::companion))
                .build();
        c.addListener(h.diffEditors());
        c.addListener(new StatusFeed(c));
        c.start();
        companion = c;
        host = h;
      } catch (IOException | RuntimeException e) {
        log.error("The Qwen Code / Gemini CLI companion could not start: " + e.getMessage(), e);
        StatusFeed.publish(StatusSnapshot.off(e.getMessage()));
        return;
      } finally {
        current.setContextClassLoader(previous);
      }
      ResourcesPlugin.getWorkspace()
          .addResourceChangeListener(projectListener, IResourceChangeEvent.POST_CHANGE);
      EditorTracker t = new EditorTracker(workbench, companion::editorEvent);
      tracker = t;
      workbench.getDisplay().asyncExec(t::attach);
      workbench.addWorkbenchListener(shutdownListener);
      log.info("Companion for Qwen Code and Gemini CLI serves on port " + companion.port());
      StatusFeed.publish(StatusSnapshot.of(companion));
      // Once: the script's caller waits for one line; a restart is seen in the status line.
      if (Boolean.getBoolean(READY_LINE_PROPERTY) && !announced) {
        announced = true;
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println(
            "{\"event\":\"ready\",\"port\":"
                + companion.port()
                + ",\"pid\":"
                + ProcessHandle.current().pid()
                + "}");
      }
    }
  }

  void stopCompanion() {
    Companion c;
    synchronized (lock) {
      c = companion;
      companion = null;
      host = null;
      if (c == null) {
        return;
      }
      ResourcesPlugin.getWorkspace().removeResourceChangeListener(projectListener);
      EditorTracker t = tracker;
      tracker = null;
      Display display =
          PlatformUI.isWorkbenchRunning() ? PlatformUI.getWorkbench().getDisplay() : null;
      if (display != null && !display.isDisposed()) {
        display.asyncExec(t::detach);
      }
    }
    c.stop();
    StatusFeed.publish(StatusSnapshot.off(null));
  }

  /** On any thread: stops the companion and starts a new one with the current settings. */
  public static void restartCompanion() {
    Activator a = instance;
    if (a != null) {
      a.restart.schedule(200);
    }
  }

  /** On the UI thread: brings the compare editor of a pending proposal to the front. */
  public static void revealProposal(DiffId id) {
    Activator a = instance;
    EclipseHost h = a == null ? null : a.host;
    if (h != null) {
      h.diffEditors().reveal(id);
    }
  }

  /** Tells the companion when a project was added, removed, opened or closed. */
  private void projectsChanged(IResourceChangeEvent event) {
    IResourceDelta delta = event.getDelta();
    if (delta == null || !touchesProjects(delta)) {
      return;
    }
    Companion c;
    synchronized (lock) {
      c = companion;
    }
    if (c == null) {
      return;
    }
    try {
      c.workspaceChanged();
    } catch (IOException e) {
      log.error("The CLIs' discovery files could not be updated: " + e.getMessage(), e);
    }
  }

  private static boolean touchesProjects(IResourceDelta root) {
    for (IResourceDelta child : root.getAffectedChildren()) {
      if (child.getResource() instanceof IProject
          && (child.getKind() != IResourceDelta.CHANGED
              || (child.getFlags() & (IResourceDelta.OPEN | IResourceDelta.DESCRIPTION)) != 0)) {
        return true;
      }
    }
    return false;
  }
}
