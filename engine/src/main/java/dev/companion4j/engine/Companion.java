package dev.companion4j.engine;

import dev.companion4j.engine.discovery.DiscoveryFiles;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import dev.companion4j.engine.discovery.DiscoveryTarget;
import dev.companion4j.engine.internal.context.ContextJson;
import dev.companion4j.engine.internal.context.ContextPublisher;
import dev.companion4j.engine.internal.context.EngineScheduler;
import dev.companion4j.engine.internal.context.ContextTracker;
import dev.companion4j.engine.internal.diff.DiffCoordinator;
import dev.companion4j.engine.internal.server.ClientSessions;
import dev.companion4j.engine.internal.server.CompanionServer;
import dev.companion4j.engine.internal.server.DiffTools;
import jakarta.servlet.http.HttpServlet;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An IDE companion for Qwen Code and Gemini CLI: an MCP server the CLIs discover, which pushes
 * the editor's context to them and routes their proposed edits to the editor for review.
 *
 * <pre>{@code
 * Companion companion = Companion.builder(myHost).build();
 * companion.start();                      // serves, writes discovery files
 * companion.editorEvent(new EditorEvent.FileFocused(path));
 * companion.acceptDiff(filePath, text);   // when the user accepts in the editor
 * companion.close();                      // stops, removes the files
 * }</pre>
 *
 * <p>A companion runs once: to restart, close it and build a new one. It is thread-safe.
 */
public final class Companion implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Companion.class);
  private static final String VERSION = "0.1.0";
  private static final Duration STALE_CLEANUP_DEADLINE = Duration.ofSeconds(30);

  private final CompanionHost host;
  private final Settings settings;
  private final List<CompanionListener> listeners = new CopyOnWriteArrayList<>();
  private final String authToken = newToken();
  private final Clock clock = Clock.systemUTC();

  private final ScheduledExecutorService engineThread;
  private final ContextTracker tracker;
  private final DiffCoordinator diffs;
  private final ClientSessions sessions;
  private final DiscoveryFiles discovery;
  private final CompanionServer server;

  private volatile IdeContext context;
  private volatile List<Path> roots = List.of();
  private final ContextPublisher publisher;
  private Thread shutdownHook;
  private HttpClient reaperClient;
  private State state = State.NEW;

  private enum State { NEW, RUNNING, STOPPED }

  private Companion(Builder b) {
    this.host = b.host;
    this.settings = new Settings(b);
    this.listeners.addAll(b.listeners);
    this.engineThread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "companion4j-engine");
      t.setDaemon(true);
      return t;
    });
    this.tracker = new ContextTracker(host.isTrusted());
    this.context = tracker.snapshot();
    this.publisher = new ContextPublisher(settings.debounce, settings.maxDebounce, new EngineThreadScheduler(), this::sendContext);
    this.diffs = new DiffCoordinator(
            host,
            () -> roots,
            // Off the caller's thread: hosts answer diffs from their UI thread.
            (sessionId, method, params) -> runOnEngine(() -> notifyOne(sessionId, method, params)),
            listeners,
            clock);
    this.sessions = new ClientSessions(settings.maxClients, clock, new SessionEvents());
    this.discovery = new DiscoveryFiles(settings.locations, settings.targets, settings.pid);
    this.server =
        new CompanionServer(
            new CompanionServer.Settings(
                authToken,
                "companion4j",
                VERSION,
                settings.keepAliveInterval,
                settings.maxBodyBytes,
                DiffTools.specifications(diffs),
                b.routes,
                sessions));
  }

  /** Starts building a companion for {@code host}. */
  public static Builder builder(CompanionHost host) {
    return new Builder(host);
  }

  /**
   * Starts serving on a loopback port the OS assigns and writes the discovery files; then, in the
   * background, removes the files that crashed companions left behind.
   *
   * @throws IOException when the server cannot listen or the discovery files cannot be written
   */
  public synchronized void start() throws IOException {
    if (state != State.NEW) {
      throw new IllegalStateException("a companion starts once; build a new one to restart");
    }
    state = State.RUNNING;
    try {
      server.open();
      roots = normalise(host.workspaceRoots());
      discovery.write(port(), workspacePath(), authToken, host.ideInfo());
      server.start();
    } catch (Exception e) {
      // No companion without its files, and no files without a companion behind them.
      discovery.removeAll();
      server.stop();
      state = State.STOPPED;
      engineThread.shutdownNow();
      throw e instanceof IOException io ? io : new IOException("Could not start the companion: " + e.getMessage(), e);
    }
    shutdownHook = new Thread(discovery::removeAll, "companion4j-discovery-cleanup");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    // Crashed companions' files only mislead the CLIs' scans; cleaning them need not delay start-up,
    // and a planted file in a shared directory must not stall the engine.
    new DiscoveryScanner(settings.locations).removeStaleInBackground(STALE_CLEANUP_DEADLINE);
    long reapEvery = Math.max(1_000, settings.idleTimeout.toMillis() / 4);
    engineThread.scheduleWithFixedDelay(this::reapIdleSessions, reapEvery, reapEvery, TimeUnit.MILLISECONDS);
    log.info("Companion for {} listening on 127.0.0.1:{}", host.ideInfo().displayName(), port());
  }

  /** Stops serving and removes the discovery files; safe to call more than once. */
  public synchronized void stop() {
    if (state != State.RUNNING) {
      state = State.STOPPED;
      engineThread.shutdownNow();
      return;
    }
    state = State.STOPPED;
    discovery.removeAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; the files are gone either way.
    }
    diffs.closeAll();
    server.stop();
    sessions.clear(client -> listeners.forEach(l -> l.clientDisconnected(client)));
    engineThread.shutdownNow();
    log.info("Companion on port {} stopped", port());
  }

  @Override
  public void close() {
    stop();
  }

  public synchronized boolean isRunning() {
    return state == State.RUNNING;
  }

  /** The loopback port; -1 before {@link #start()}, and the port it served on after a stop. */
  public int port() {
    return server.port();
  }

  /**
   * The bearer token every request must carry. Give it only to the user's own tools; it is never
   * logged nor part of {@link #toString()}.
   */
  public String authToken() {
    return authToken;
  }

  public IdeInfo ideInfo() {
    return host.ideInfo();
  }

  /** The workspace roots announced in the discovery files. */
  public List<Path> workspaceRoots() {
    return roots;
  }

  /** The roots joined with the OS path separator, as the CLIs expect them. */
  public String workspacePath() {
    return roots.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
  }

  /** The discovery files currently written. */
  public List<Path> discoveryFiles() {
    return discovery.files();
  }

  /**
   * The variables a terminal needs so that a CLI started in it connects to this companion even
   * when several companions serve the same workspace.
   */
  public Map<String, String> terminalEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    String port = Integer.toString(port());
    if (settings.targets.contains(DiscoveryTarget.QWEN_CODE)) {
      env.put("QWEN_CODE_IDE_SERVER_PORT", port);
      env.put("QWEN_CODE_IDE_WORKSPACE_PATH", workspacePath());
    }
    if (settings.targets.contains(DiscoveryTarget.GEMINI_CLI)) {
      env.put("GEMINI_CLI_IDE_SERVER_PORT", port);
      env.put("GEMINI_CLI_IDE_WORKSPACE_PATH", workspacePath());
      env.put("GEMINI_CLI_IDE_AUTH_TOKEN", authToken);
    }
    return env;
  }

  /**
   * Re-reads the host's workspace roots and rewrites the discovery files; call it when the user
   * opens or closes a project.
   */
  public synchronized void workspaceChanged() throws IOException {
    List<Path> now = normalise(host.workspaceRoots());
    if (state != State.RUNNING || now.equals(roots)) {
      roots = now;
      return;
    }
    roots = now;
    discovery.write(port(), workspacePath(), authToken, host.ideInfo());
  }

  /** Feeds an editor event; the CLIs hear of it after the debounce. Never blocks. */
  public void editorEvent(EditorEvent event) {
    Objects.requireNonNull(event, "event");
    runOnEngine(() -> {
      if (tracker.apply(event)) {
        context = tracker.snapshot();
        publisher.changed(context);
      }
    });
  }

  /** The context as the CLIs will see it after the pending debounce. */
  public IdeContext context() {
    return context;
  }

  public List<PendingDiff> pendingDiffs() {
    return diffs.pending();
  }

  public Optional<PendingDiff> pendingDiff(String filePath) {
    return diffs.get(filePath);
  }

  /**
   * The user accepted the diff for {@code filePath}; the CLI that proposed it writes {@code
   * content}.
   *
   * @param content the accepted text, edits included; null for the text as proposed
   * @return false when no diff is pending for that path
   */
  public boolean acceptDiff(String filePath, String content) {
    return diffs.accept(filePath, content);
  }

  /**
   * The user rejected the diff for {@code filePath}.
   *
   * @return false when no diff is pending for that path
   */
  public boolean rejectDiff(String filePath) {
    return diffs.reject(filePath);
  }

  /** The CLIs connected now. */
  public List<ConnectedClient> clients() {
    return sessions.clients();
  }

  public void addListener(CompanionListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(CompanionListener listener) {
    listeners.remove(listener);
  }

  @Override
  public String toString() {
    return "Companion{ide=" + host.ideInfo().name() + ", port=" + port() + ", workspace=" + workspacePath() + "}";
  }

  /** Sends {@code now} to every CLI whose stream is open; on the engine thread. */
  private void sendContext(IdeContext now) {
    Map<String, Object> params = ContextJson.toParams(now);
    for (String sessionId : sessions.listening()) {
      server.notify(sessionId, "ide/contextUpdate", params);
    }
    listeners.forEach(l -> l.contextSent(now));
  }

  private void notifyOne(String sessionId, String method, Map<String, Object> params) {
    if (!server.notify(sessionId, method, params)) {
      log.debug("Session {} has no open stream; holding {}", sessionId, method);
      sessions.hold(sessionId, new ClientSessions.Notification(method, params));
    }
  }

  private void reapIdleSessions() {
    for (String sessionId : sessions.idleLongerThan(settings.idleTimeout)) {
      log.info("Closing MCP session {} idle for over {}", sessionId, settings.idleTimeout);
      // Through the same DELETE a client sends, so the SDK frees the session as on a goodbye.
      try {
        if (reaperClient == null) {
          reaperClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        }
        HttpRequest delete = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + CompanionServer.MCP_PATH))
            .timeout(Duration.ofSeconds(5))
            .header("Authorization", "Bearer " + authToken)
            .header("mcp-session-id", sessionId)
            .DELETE()
            .build();
        int status = reaperClient.send(delete, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status >= 300) {
          sessions.deleted(sessionId);
        }
      } catch (IOException e) {
        sessions.deleted(sessionId);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void runOnEngine(Runnable task) {
    try {
      engineThread.execute(() -> {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          // The executor would swallow it; an OutOfMemoryError here must at least leave a line.
          log.error("Engine task failed", e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      log.debug("Companion stopped; event dropped");
    }
  }

  private static List<Path> normalise(List<Path> paths) {
    return paths.stream().map(p -> p.toAbsolutePath().normalize()).distinct().toList();
  }

  private static String newToken() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** The engine thread's scheduler, with the system's monotonic clock. */
  private final class EngineThreadScheduler implements EngineScheduler {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public Runnable schedule(Runnable task, long delayNanos) {
      ScheduledFuture<?> future = engineThread.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> future.cancel(false);
    }
  }

  private final class SessionEvents implements ClientSessions.Events {
    @Override
    public void connected(ConnectedClient client) {
      log.info("CLI connected: {} {}", client.name(), client.version());
      listeners.forEach(l -> l.clientConnected(client));
    }

    @Override
    public void streamOpened(String sessionId, List<ClientSessions.Notification> held) {
      // Once per session is normal; more means the client keeps reconnecting.
      log.info("Notification stream opened for session {}", sessionId);
      runOnEngine(() -> {
        // The CLIs expect the current context as soon as their stream opens.
        server.notify(sessionId, "ide/contextUpdate", ContextJson.toParams(context));
        for (ClientSessions.Notification n : held) {
          notifyOne(sessionId, n.method(), n.params());
        }
      });
    }

    @Override
    public void disconnected(ConnectedClient client) {
      log.info("CLI disconnected: {}", client.name());
      diffs.clientGone(client.id());
      listeners.forEach(l -> l.clientDisconnected(client));
    }
  }

  /** The settings fixed at build time. */
  private static final class Settings {
    final DiscoveryLocations locations;
    final Set<DiscoveryTarget> targets;
    final long pid;
    final Duration debounce;
    final Duration maxDebounce;
    final Duration keepAliveInterval;
    final Duration idleTimeout;
    final int maxClients;
    final int maxBodyBytes;

    Settings(Builder b) {
      locations = b.locations;
      targets = b.targets;
      pid = b.pid;
      debounce = b.debounce;
      maxDebounce = b.debounce.multipliedBy(5);
      keepAliveInterval = b.keepAliveInterval;
      idleTimeout = b.idleTimeout;
      maxClients = b.maxClients;
      maxBodyBytes = b.maxBodyBytes;
    }
  }

  /** Builds a {@link Companion}; every setting has a default that suits a desktop editor. */
  public static final class Builder {
    private final CompanionHost host;
    private DiscoveryLocations locations;
    private Set<DiscoveryTarget> targets = EnumSet.allOf(DiscoveryTarget.class);
    private long pid = ProcessHandle.current().pid();
    private Duration debounce = Duration.ofMillis(50);
    private Duration keepAliveInterval = Duration.ofSeconds(30);
    private Duration idleTimeout = Duration.ofMinutes(2);
    private int maxClients = 32;
    private int maxBodyBytes = 10 * 1024 * 1024;
    private final List<CompanionServer.Route> routes = new ArrayList<>();
    private final List<CompanionListener> listeners = new ArrayList<>();

    private Builder(CompanionHost host) {
      this.host = Objects.requireNonNull(host, "host");
    }

    /** Where discovery files go; by default resolved from this process's environment. */
    public Builder discoveryLocations(DiscoveryLocations locations) {
      this.locations = Objects.requireNonNull(locations, "locations");
      return this;
    }

    /** Which CLI families to write discovery files for; both by default. */
    public Builder discoveryTargets(Set<DiscoveryTarget> targets) {
      this.targets = targets.isEmpty() ? EnumSet.noneOf(DiscoveryTarget.class) : EnumSet.copyOf(targets);
      return this;
    }

    /** The IDE's process id, used in file names and for stale-file detection; this JVM's by default. */
    public Builder ideProcessId(long pid) {
      this.pid = pid;
      return this;
    }

    /** How long context changes settle before one update goes out; 50 ms by default. */
    public Builder debounce(Duration debounce) {
      this.debounce = positive(debounce, "debounce");
      return this;
    }

    /** How often open streams get a ping, which also detects CLIs that vanished; 30 s by default. */
    public Builder keepAliveInterval(Duration interval) {
      this.keepAliveInterval = positive(interval, "keepAliveInterval");
      return this;
    }

    /** How long a session without a stream or request lives before it is closed; 2 min by default. */
    public Builder idleTimeout(Duration idle) {
      this.idleTimeout = positive(idle, "idleTimeout");
      return this;
    }

    /** The most CLI sessions at once; further handshakes are refused. 32 by default. */
    public Builder maxClients(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxClients must be at least 1");
      }
      this.maxClients = max;
      return this;
    }

    /** The largest request body accepted on any route; 10 MB by default, as the official companions. */
    public Builder maxBodyBytes(int max) {
      if (max < 1024) {
        throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
      }
      this.maxBodyBytes = max;
      return this;
    }

    /**
     * Serves {@code servlet} at {@code pathSpec} on the companion's port, behind the same token
     * and Host checks as {@code /mcp}. Unlike {@code /mcp}, these routes also accept requests
     * from the companion's own origin, so a page it serves can call them.
     */
    public Builder route(String pathSpec, HttpServlet servlet) {
      return addRoute(pathSpec, servlet, false);
    }

    /**
     * Serves static assets at {@code pathSpec} without the token (GET and HEAD only; the Host
     * check still applies): a page the user opens in a browser cannot send a bearer header with
     * the navigation. Nothing served here may reveal editor data.
     */
    public Builder publicRoute(String pathSpec, HttpServlet servlet) {
      return addRoute(pathSpec, servlet, true);
    }

    private Builder addRoute(String pathSpec, HttpServlet servlet, boolean open) {
      if (!pathSpec.startsWith("/") || pathSpec.startsWith(CompanionServer.MCP_PATH)) {
        throw new IllegalArgumentException("a host route must start with / and not be " + CompanionServer.MCP_PATH);
      }
      routes.add(new CompanionServer.Route(pathSpec, Objects.requireNonNull(servlet, "servlet"), open));
      return this;
    }

    public Builder listener(CompanionListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    public Companion build() {
      if (locations == null) {
        locations = DiscoveryLocations.fromEnvironment();
      }
      return new Companion(this);
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive");
      }
      return d;
    }
  }
}
