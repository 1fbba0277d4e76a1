package dev.companion4j.eclipse.status;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.PendingDiff;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

/**
 * The companion's state for the status line and the view: published from the engine's threads (as
 * its listener) and the plugin's, shown on the UI thread. The newest snapshot wins: a viewer never
 * sees an older one after a newer.
 */
public final class StatusFeed implements CompanionListener {
  private static volatile StatusSnapshot current = StatusSnapshot.off(null);

  /** Touched on the UI thread; copy-on-write since a publish may run while one unwatches. */
  private static final List<Consumer<StatusSnapshot>> viewers = new CopyOnWriteArrayList<>();

  private final Companion companion;

  /** A listener for {@code companion}, which publishes its state on each of its events. */
  public StatusFeed(Companion companion) {
    this.companion = companion;
  }

  /** The newest snapshot. */
  public static StatusSnapshot current() {
    return current;
  }

  /**
   * On any thread: makes {@code snapshot} the current one and shows it, later, on the UI thread.
   */
  public static void publish(StatusSnapshot snapshot) {
    current = snapshot;
    if (!PlatformUI.isWorkbenchRunning()) {
      return;
    }
    Display display = PlatformUI.getWorkbench().getDisplay();
    if (!display.isDisposed()) {
      display.asyncExec(
          () -> {
            StatusSnapshot now = current;
            viewers.forEach(v -> v.accept(now));
          });
    }
  }

  /** On the UI thread: {@code viewer} gets the current snapshot now and every newer one after. */
  static void watch(Consumer<StatusSnapshot> viewer) {
    viewers.add(viewer);
    viewer.accept(current);
  }

  /** On the UI thread. */
  static void unwatch(Consumer<StatusSnapshot> viewer) {
    viewers.remove(viewer);
  }

  // On the engine thread: short, never blocking (a snapshot reads without waiting).

  @Override
  public void clientConnected(ConnectedClient client) {
    publish(StatusSnapshot.of(companion));
  }

  @Override
  public void clientDisconnected(ConnectedClient client) {
    publish(StatusSnapshot.of(companion));
  }

  @Override
  public void diffOpened(PendingDiff diff) {
    publish(StatusSnapshot.of(companion));
  }

  @Override
  public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
    publish(StatusSnapshot.of(companion));
  }
}
