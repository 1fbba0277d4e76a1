package dev.companion4j.eclipse.status;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Path;
import java.util.List;

/**
 * What the status line and the view show of the companion at one moment.
 *
 * @param running whether it serves
 * @param port its loopback port, -1 when it does not serve
 * @param clients the CLIs connected now
 * @param pendingDiffs the proposals waiting for the user, oldest first
 * @param roots the workspace roots announced to the CLIs
 * @param discoveryFiles the files the CLIs find it by
 * @param failure why it does not serve, or null
 */
public record StatusSnapshot(
    boolean running,
    int port,
    List<ConnectedClient> clients,
    List<PendingDiff> pendingDiffs,
    List<Path> roots,
    List<Path> discoveryFiles,
    String failure) {
  public StatusSnapshot {
    clients = List.copyOf(clients);
    pendingDiffs = List.copyOf(pendingDiffs);
    roots = List.copyOf(roots);
    discoveryFiles = List.copyOf(discoveryFiles);
  }

  /** The companion as it is now; on any thread (each part is read without waiting). */
  public static StatusSnapshot of(Companion c) {
    if (!c.isRunning()) {
      return off(null);
    }
    return new StatusSnapshot(
        true,
        c.port(),
        c.clients(),
        c.pendingDiffs(),
        c.workspaceRoots(),
        c.discoveryFiles(),
        null);
  }

  /** No companion serves; {@code failure} says why, when it failed. */
  public static StatusSnapshot off(String failure) {
    return new StatusSnapshot(false, -1, List.of(), List.of(), List.of(), List.of(), failure);
  }
}
