package dev.companion4j.engine.internal.session;

import dev.companion4j.engine.ClientProcess;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Names the process behind each connecting CLI, on a thread of its own ({@code companion4j-peers})
 * that exists only while CLIs connect; handshakes arriving together share one pass ({@link
 * PeerLookups}). A handshake waits for its name at most {@link #BOUND}.
 *
 * <p>Thread-safe. Its owner closes it once no handshake comes any more.
 */
public final class PeerNaming implements AutoCloseable {
  /** Past this, a CLI is served unnamed rather than kept waiting. */
  static final Duration BOUND = Duration.ofSeconds(2);

  private final ThreadPoolExecutor thread =
      new ThreadPoolExecutor(
          0,
          1,
          10,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          r -> {
            Thread t = new Thread(r, "companion4j-peers");
            t.setDaemon(true);
            return t;
          });
  private final PeerLookups lookups = new PeerLookups(PeerProcesses.system(), thread);

  /**
   * The process behind the connection from {@code clientPort} to {@code serverPort}, or {@link
   * ClientProcess#UNKNOWN} when it is not found within the bound; ask while the connection is open.
   */
  public ClientProcess identify(int serverPort, int clientPort) {
    try {
      return lookups.identify(serverPort, clientPort).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ClientProcess.UNKNOWN;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return ClientProcess.UNKNOWN;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
