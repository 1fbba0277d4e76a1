package dev.companion4j.engine;

import dev.companion4j.engine.discovery.DiscoveryFiles;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import dev.companion4j.engine.internal.diff.ChangeBook;
import dev.companion4j.engine.internal.diff.DiffBook;
import dev.companion4j.engine.internal.loop.EngineLoop;
import dev.companion4j.engine.internal.loop.Lifecycle;
import dev.companion4j.engine.internal.server.CompanionServer;
import dev.companion4j.engine.internal.session.SessionRegistry;
import dev.companion4j.engine.internal.sse.Liveness;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A companion's serving life: start, root changes and stop, and the workspace roots they announce.
 * No lock is held while it waits for another thread ({@link Lifecycle}): the host's roots are read
 * on the engine thread without one, and only the state change and the discovery files are under it.
 */
final class Serving {
  private static final Logger log = LoggerFactory.getLogger(Serving.class);
  private static final Duration STALE_CLEANUP_DEADLINE = Duration.ofSeconds(30);

  /** How long a stop waits for the engine thread to finish what is queued. */
  private static final Duration STOP_BOUND = Duration.ofSeconds(5);

  /** What a companion serves with; each part has its own owner, this only starts and stops them. */
  record Parts(
      CompanionHost host,
      IdeInfo ideInfo,
      String authToken,
      EngineLoop engine,
      EngineLoop code,
      Liveness liveness,
      SessionRegistry sessions,
      DiffBook diffs,
      ChangeBook changes,
      CompanionServer server,
      DiscoveryFiles discovery,
      DiscoveryLocations locations) {}

  private final Parts parts;
  private final Lifecycle lifecycle = new Lifecycle();

  /** Written on the engine thread only, where the host is asked for them. */
  private volatile List<Path> roots = List.of();

  /** Guarded by {@link #lifecycle}, as are the discovery files written for it. */
  private List<Path> announced;

  /** Guarded by {@link #lifecycle}. */
  private Thread shutdownHook;

  Serving(Parts parts) {
    this.parts = parts;
  }

  boolean isRunning() {
    return lifecycle.isRunning();
  }

  List<Path> roots() {
    return roots;
  }

  static String joined(List<Path> paths) {
    return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
  }

  /** See {@link Companion#start()}. */
  void start() throws IOException {
    lifecycle.beginStart();
    // A stop meanwhile shows at the next step, and what was begun is undone here.
    try {
      parts.server().open();
      readRoots();
      lifecycle.whileStarting(
          () -> {
            announce();
            shutdownHook = new Thread(parts.discovery()::removeAll, "companion4j-discovery-exit");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
          });
      parts.server().start();
      lifecycle.started();
    } catch (Exception e) {
      // No companion without its files, and no files without a companion behind them.
      lifecycle.stop(this::withdrawDiscovery);
      parts.server().stop();
      parts.engine().shutdown(STOP_BOUND);
      parts.code().shutdown(STOP_BOUND);
      throw e instanceof IOException io
          ? io
          : new IOException("Could not start the companion: " + e.getMessage(), e);
    }
    // Crashed companions' files only mislead the CLIs' scans; cleaning them need not delay
    // start-up,
    // and a planted file in a shared directory must not stall the engine.
    new DiscoveryScanner(parts.locations()).removeStaleInBackground(STALE_CLEANUP_DEADLINE);
    // The one liveness sweep: every stream first (heartbeats, stalls), then the sessions.
    parts
        .engine()
        .every(
            Liveness.INTERVAL,
            () -> {
              parts.liveness().sweep();
              parts.sessions().sweep();
            });
    log.info(
        "Companion for {} listening on 127.0.0.1:{}",
        parts.ideInfo().displayName(),
        parts.server().port());
  }

  /** See {@link Companion#stop()}. */
  void stop() {
    // Only the files are removed under the lock; what waits (Jetty's threads, the engine thread
    // finishing its queue) waits without it.
    Lifecycle.State before = lifecycle.stop(this::withdrawDiscovery);
    if (before == Lifecycle.State.STARTING || before == Lifecycle.State.RUNNING) {
      parts.diffs().stopAll();
      parts.changes().stopAll();
      parts.sessions().closeAll();
      parts.server().stop();
    }
    parts.engine().shutdown(STOP_BOUND);
    parts.code().shutdown(STOP_BOUND);
    if (before == Lifecycle.State.RUNNING) {
      log.info("Companion on port {} stopped", parts.server().port());
    }
  }

  /** See {@link Companion#workspaceChanged()}. */
  void workspaceChanged() throws IOException {
    readRoots();
    lifecycle.whileRunning(this::announce);
  }

  /** Asks the host for its roots, on the engine thread, which orders concurrent askers. */
  private void readRoots() throws IOException {
    try {
      parts.engine().call(() -> roots = normalise(parts.host().workspaceRoots()));
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("Could not read the workspace roots: " + e.getMessage(), e);
    }
  }

  /**
   * Writes the discovery files for the newest roots, unless they say so already; under the
   * lifecycle's lock. Racing changes each write the newest, so the last write is never stale.
   */
  private void announce() throws IOException {
    List<Path> now = roots;
    if (!now.equals(announced)) {
      parts
          .discovery()
          .write(parts.server().port(), joined(now), parts.authToken(), parts.ideInfo());
      announced = now;
    }
  }

  /** Removes the discovery files and their shutdown hook; under the lifecycle's lock. */
  private void withdrawDiscovery() {
    parts.discovery().removeAll();
    if (shutdownHook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; the files are gone either way.
    }
  }

  private static List<Path> normalise(List<Path> paths) {
    return paths.stream().map(p -> p.toAbsolutePath().normalize()).distinct().toList();
  }
}
