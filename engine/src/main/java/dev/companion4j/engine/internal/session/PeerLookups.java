package dev.companion4j.engine.internal.session;

import dev.companion4j.engine.ClientProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;

/**
 * Names the processes behind connecting CLIs, many at a time: lookups asked for while one pass over
 * {@code /proc} runs are answered together by the next, so twenty CLIs connecting at once cost two
 * or three passes rather than twenty. Each pass runs on the given executor, one at a time.
 *
 * <p>Thread-safe. The futures complete on the executor's thread.
 */
public final class PeerLookups {
  private final PeerProcesses peers;
  private final Executor executor;

  // Guarded by this.
  private final List<Lookup> waiting = new ArrayList<>();
  private boolean passQueued;

  private record Lookup(int serverPort, int clientPort, CompletableFuture<ClientProcess> answer) {}

  /**
   * @param executor runs the passes; one thread is enough, and more gain nothing
   */
  public PeerLookups(PeerProcesses peers, Executor executor) {
    this.peers = peers;
    this.executor = executor;
  }

  /**
   * The process behind the connection from {@code clientPort} to {@code serverPort}, or {@link
   * ClientProcess#UNKNOWN}; ask while the connection is open.
   */
  public CompletableFuture<ClientProcess> identify(int serverPort, int clientPort) {
    Lookup lookup = new Lookup(serverPort, clientPort, new CompletableFuture<>());
    boolean queue;
    synchronized (this) {
      waiting.add(lookup);
      queue = !passQueued;
      passQueued = true;
    }
    if (queue) {
      executor.execute(this::pass);
    }
    return lookup.answer();
  }

  private void pass() {
    List<Lookup> batch;
    synchronized (this) {
      batch = List.copyOf(waiting);
      waiting.clear();
      passQueued = false;
    }
    Map<Integer, List<Lookup>> byServerPort =
        batch.stream().collect(Collectors.groupingBy(Lookup::serverPort));
    byServerPort.forEach(
        (serverPort, lookups) -> {
          Set<Integer> clientPorts =
              lookups.stream().map(Lookup::clientPort).collect(Collectors.toSet());
          Map<Integer, ClientProcess> found = peers.identifyAll(serverPort, clientPorts);
          lookups.forEach(
              l -> l.answer().complete(found.getOrDefault(l.clientPort(), ClientProcess.UNKNOWN)));
        });
  }
}
