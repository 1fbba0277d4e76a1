package dev.companion4j.eclipse;

import dev.companion4j.eclipse.chat.ChatService;
import dev.companion4j.engine.Companion;
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
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.IWorkbench;
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
  private ILog log;
  // Guarded by lock.
  private Companion companion;
  private EditorTracker tracker;

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
  }

  @Override
  public void stop(BundleContext context) {
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
        EclipseHost host = new EclipseHost(workbench);
        Companion c =
            Companion.builder(host)
                // The IDE tools for the chat's ACP agent (chat.AgentChat).
                .mcpRoute(IdeToolsRoute.PATH, IdeToolsRoute.servlet(Activator::companion))
                .build();
        c.addListener(host.diffEditors());
        c.start();
        companion = c;
      } catch (IOException | RuntimeException e) {
        log.error("The Qwen Code / Gemini CLI companion could not start: " + e.getMessage(), e);
        return;
      } finally {
        current.setContextClassLoader(previous);
      }
      ResourcesPlugin.getWorkspace()
          .addResourceChangeListener(projectListener, IResourceChangeEvent.POST_CHANGE);
      EditorTracker t = new EditorTracker(workbench, companion::editorEvent);
      tracker = t;
      workbench.getDisplay().asyncExec(t::attach);
      log.info("Companion for Qwen Code and Gemini CLI serves on port " + companion.port());
      if (Boolean.getBoolean(READY_LINE_PROPERTY)) {
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
