package dev.companion4j.engine;

import dev.companion4j.engine.discovery.CompanionProof;
import dev.companion4j.engine.discovery.DiscoveryFiles;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryTarget;
import dev.companion4j.engine.internal.code.Renames;
import dev.companion4j.engine.internal.context.ContextPublisher;
import dev.companion4j.engine.internal.context.ContextTracker;
import dev.companion4j.engine.internal.context.DiagnosticsBook;
import dev.companion4j.engine.internal.diff.ChangeBook;
import dev.companion4j.engine.internal.diff.DiffBook;
import dev.companion4j.engine.internal.loop.EngineLoop;
import dev.companion4j.engine.internal.server.CodeRoutes;
import dev.companion4j.engine.internal.server.CompanionServer;
import dev.companion4j.engine.internal.server.DiffTools;
import dev.companion4j.engine.internal.server.IdeRoutes;
import dev.companion4j.engine.internal.server.ProofRoute;
import dev.companion4j.engine.internal.session.PeerProcesses;
import dev.companion4j.engine.internal.session.SessionRegistry;
import dev.companion4j.engine.internal.sse.Liveness;
import dev.companion4j.engine.internal.sse.SseChannel;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An IDE companion for Qwen Code and Gemini CLI: an MCP server the CLIs discover, which pushes the
 * editor's context to them and routes their proposed edits to the editor for review.
 *
 * <pre>{@code
 * Companion companion = Companion.builder(myHost).build();
 * companion.start();                      // serves, writes discovery files
 * companion.editorEvent(new EditorEvent.FileFocused(path));
 * // the host's showDiff(diff, review) gets each proposal; review.accept(text) answers it
 * companion.close();                      // stops, removes the files
 * }</pre>
 *
 * <p>A companion runs once: to restart, close it and build a new one. It is thread-safe, and its
 * methods never wait for a CLI, nor hold a lock while they wait for the engine thread (a few
 * seconds at most). Every {@link CompanionHost} call and {@link CompanionListener} callback runs on
 * its engine thread; see {@link CompanionHost} for that contract.
 */
public final class Companion implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Companion.class);
  private static final String VERSION = "0.1.0";
  private static final Duration PING_TIMEOUT = Duration.ofSeconds(10);

  /** Each CLI's outbound queue; context coalesces, so only outcomes and pings can fill it. */
  private static final SseChannel.Limits QUEUE = new SseChannel.Limits(256, 32L * 1024 * 1024);

  private static final String CONTEXT_KEY = "context";

  private final CompanionHost host;
  private final IdeInfo ideInfo;
  private final Set<HostFeature> declaredFeatures;
  private final Settings settings;
  private final List<CompanionListener> listeners = new CopyOnWriteArrayList<>();
  private final String authToken = newToken();
  private final Clock clock = Clock.systemUTC();

  private final EngineLoop engine = new EngineLoop("companion4j-engine");

  /** Where the host answers questions about code: they may take seconds, the engine may not. */
  private final EngineLoop code = new EngineLoop("companion4j-code");

  private final Renames renames = new Renames();
  private final Liveness liveness = new Liveness(engine::nanoTime);
  private final ContextTracker tracker;
  private final DiagnosticsBook diagnostics;
  private final ContextPublisher publisher;
  private final DiffBook diffs;
  private final ChangeBook changes;
  private final SessionRegistry sessions;
  private final DiscoveryFiles discovery;
  private final CompanionServer server;
  private final Serving serving;

  private volatile IdeContext context;
  private volatile List<OpenEditor> editors = List.of();

  private Companion(Builder b) {
    this.host = b.host;
    this.settings = new Settings(b);
    this.listeners.addAll(b.listeners);
    this.ideInfo = onEngine(host::ideInfo);
    Set<HostFeature> declared = onEngine(host::features);
    this.declaredFeatures =
        declared.isEmpty() ? EnumSet.noneOf(HostFeature.class) : EnumSet.copyOf(declared);
    this.tracker = new ContextTracker(onEngine(host::isTrusted));
    this.diagnostics = new DiagnosticsBook(d -> listeners.forEach(l -> l.diagnosticsChanged(d)));
    this.context = tracker.snapshot();
    this.publisher =
        new ContextPublisher(settings.debounce, settings.maxDebounce, engine, this::sendContext);
    this.sessions =
        new SessionRegistry(
            new SessionRegistry.Settings(
                settings.maxClients,
                settings.idleTimeout,
                settings.keepAliveInterval,
                PING_TIMEOUT,
                QUEUE),
            clock,
            engine,
            liveness,
            new SessionEvents());
    this.diffs =
        new DiffBook(
            host,
            this::workspaceRoots,
            (diff, method, params) -> sessions.notify(diff.clientId(), null, method, params),
            engine,
            listeners,
            clock);
    this.changes = new ChangeBook(diffs, host, engine, listeners, clock);
    this.discovery =
        new DiscoveryFiles(
            settings.locations,
            settings.targets,
            settings.pid,
            DiscoveryFiles.ancestorsOf(settings.pid));
    this.server =
        new CompanionServer(
            new CompanionServer.Settings(
                authToken,
                "companion4j",
                VERSION,
                settings.maxBodyBytes,
                DiffTools.specifications(diffs),
                routes(b.routes),
                sessions,
                liveness));
    this.serving =
        new Serving(
            new Serving.Parts(
                host,
                ideInfo,
                authToken,
                engine,
                code,
                liveness,
                sessions,
                diffs,
                changes,
                server,
                discovery,
                settings.locations));
  }

  /** The host's routes and the IDE routes every companion serves. */
  private List<CompanionServer.Route> routes(List<CompanionServer.Route> hostRoutes) {
    List<CompanionServer.Route> all = new ArrayList<>(hostRoutes);
    IdeView ide = new IdeView();
    all.add(new CompanionServer.Route(IdeRoutes.PATH_SPEC, new IdeRoutes(ide), false));
    all.add(new CompanionServer.Route(CodeRoutes.PATH_SPEC, new CodeRoutes(ide), false));
    all.add(new CompanionServer.Route(CompanionProof.PATH, new ProofRoute(authToken), true));
    return all;
  }

  /**
   * What {@code GET /ide/status} answers: editor, roots, context, features, CLIs and pending diffs.
   */
  CompanionStatus status() {
    return CompanionStatus.of(
        ideInfo, port(), workspaceRoots(), context(), features(), clients(), pendingDiffs());
  }

  /**
   * What the host offers beyond the IDE-mode contract: what it declared, and diagnostics or dirty
   * state once it has pushed them.
   */
  public Set<HostFeature> features() {
    Set<HostFeature> now = EnumSet.noneOf(HostFeature.class);
    now.addAll(declaredFeatures);
    if (diagnostics.reported()) {
      now.add(HostFeature.DIAGNOSTICS);
    }
    if (tracker.dirtyStateReported()) {
      now.add(HostFeature.DIRTY_STATE);
    }
    return now;
  }

  /** The files open in the editor, newest first, with cursor, selection and unsaved state. */
  List<OpenEditor> openEditors() {
    return editors;
  }

  /** Every file with diagnostics now, most errors first; answered from memory. */
  public List<FileDiagnostics> diagnostics() {
    return diagnostics.snapshot().values().stream()
        .sorted(
            Comparator.comparingLong((FileDiagnostics f) -> f.count(Diagnostic.Severity.ERROR))
                .reversed()
                .thenComparing(FileDiagnostics::path))
        .toList();
  }

  /** One file's diagnostics now: an empty list when it has none. */
  public FileDiagnostics diagnostics(Path file) {
    Path path = file.toAbsolutePath().normalize();
    return diagnostics.of(path).orElse(FileDiagnostics.none(path.toString()));
  }

  /**
   * Asks the host, on the engine thread, to show a file {@code /ide/open} checked already.
   *
   * @return completes with the host's sentence on what the user now sees, or with its {@link
   *     HostActionException}
   */
  private CompletableFuture<String> openFile(Path checked, int line, int character) {
    CompletableFuture<String> shown = new CompletableFuture<>();
    engine.execute(
        () -> {
          try {
            shown.complete(host.openFile(checked, line, character));
          } catch (HostActionException | RuntimeException e) {
            shown.completeExceptionally(e);
          }
        });
    return shown;
  }

  /**
   * What the {@code /ide/} routes may ask, kept out of the facade's public API: the host, on the
   * engine thread or (questions about code) the code thread, and renames.
   */
  private final class IdeView implements CodeRoutes.Code {
    @Override
    public IdeInfo ideInfo() {
      return ideInfo;
    }

    @Override
    public Set<HostFeature> features() {
      return Companion.this.features();
    }

    @Override
    public List<Path> workspaceRoots() {
      return serving.roots();
    }

    @Override
    public String workspacePath() {
      return Companion.this.workspacePath();
    }

    @Override
    public CompanionStatus status() {
      return Companion.this.status();
    }

    @Override
    public List<OpenEditor> openEditors() {
      return editors;
    }

    @Override
    public List<FileDiagnostics> diagnostics() {
      return Companion.this.diagnostics();
    }

    @Override
    public FileDiagnostics diagnostics(Path file) {
      return Companion.this.diagnostics(file);
    }

    @Override
    public CompletableFuture<String> openFile(Path checked, int line, int character) {
      return Companion.this.openFile(checked, line, character);
    }

    @Override
    public Optional<String> unsavedText(Path file) {
      return Companion.this.unsavedText(file);
    }

    @Override
    public CompletableFuture<List<CodeResult>> findCode(CodeQuery query) {
      return onCodeThread(() -> List.copyOf(host.findCode(query)));
    }

    @Override
    public CompletableFuture<DiffId> rename(CodeQuery.Rename rename) {
      DiffId id = DiffId.random();
      return onCodeThread(
          () -> {
            Map<Path, String> edits = host.renameEdits(rename);
            if (edits.isEmpty()) {
              throw new HostActionException(
                  ideInfo.displayName() + " found nothing to change for this rename");
            }
            CompletableFuture<ChangeOutcome> outcome;
            try {
              outcome =
                  changes.propose(
                      id, ideInfo.displayName() + " rename to " + rename.newName(), edits);
            } catch (DiffBook.DiffRequestException e) {
              throw new IllegalArgumentException(e.getMessage(), e);
            }
            renames.proposed(id, outcome, host::writeChange, code);
            return id;
          });
    }

    @Override
    public Optional<CompletableFuture<Renames.End>> renameEnd(DiffId id) {
      return renames.end(id);
    }
  }

  /** Runs {@code task} on the code thread; a cancelled task that has not begun is skipped. */
  private <T> CompletableFuture<T> onCodeThread(Renames.HostCall<T> task) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    code.execute(
        () -> {
          if (answer.isDone()) {
            return;
          }
          try {
            answer.complete(task.call());
          } catch (HostActionException | RuntimeException e) {
            answer.completeExceptionally(e);
          }
        });
    return answer;
  }

  /**
   * The running process {@code pid} as a companion describes the process behind a connection: for a
   * program that connects on a CLI's behalf, such as the stdio bridge, naming the CLI that started
   * it.
   */
  public static ClientProcess describeProcess(long pid) {
    return PeerProcesses.system().describe(pid);
  }

  /** Starts building a companion for {@code host}. */
  public static Builder builder(CompanionHost host) {
    return new Builder(host);
  }

  /**
   * Starts serving on a loopback port the OS assigns and writes the discovery files; then, in the
   * background, removes the files that crashed companions left behind.
   *
   * @throws IOException when the server cannot listen, the host does not name its roots within 5 s,
   *     the discovery files cannot be written, or a stop came first
   */
  public void start() throws IOException {
    serving.start();
  }

  /**
   * Stops serving and removes the discovery files; safe to call more than once. Each CLI hears that
   * its pending edits were rejected; the host closes their views and listeners hear of it on the
   * engine thread, which this waits for (a few seconds at most).
   */
  public void stop() {
    serving.stop();
  }

  @Override
  public void close() {
    stop();
  }

  /** Whether it serves; answered at once, whatever the companion is doing meanwhile. */
  public boolean isRunning() {
    return serving.isRunning();
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
    return ideInfo;
  }

  /** The workspace roots announced in the discovery files. */
  public List<Path> workspaceRoots() {
    return serving.roots();
  }

  /** The roots joined with the OS path separator, as the CLIs expect them. */
  public String workspacePath() {
    return Serving.joined(workspaceRoots());
  }

  /** The discovery files currently written. */
  public List<Path> discoveryFiles() {
    return discovery.files();
  }

  /**
   * The variables a terminal needs so that a CLI started in it connects to this companion even when
   * several companions serve the same workspace.
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
      if (inContainer()) {
        // Gemini CLI in a container dials host.docker.internal, where no companion listens when
        // it runs in the same container as the CLI; this variable makes it dial 127.0.0.1.
        env.put("REMOTE_CONTAINERS", "true");
      }
    }
    return env;
  }

  private static boolean inContainer() {
    return Files.exists(Path.of("/.dockerenv")) || Files.exists(Path.of("/run/.containerenv"));
  }

  /**
   * Re-reads the host's workspace roots and rewrites the discovery files; call it when the user
   * opens or closes a project.
   */
  public void workspaceChanged() throws IOException {
    serving.workspaceChanged();
  }

  /** Feeds an editor event; the CLIs hear of it after the debounce. Never blocks. */
  public void editorEvent(EditorEvent event) {
    Objects.requireNonNull(event, "event");
    engine.execute(
        () -> {
          diagnostics.apply(event);
          if (event instanceof EditorEvent.DiagnosticsChanged) {
            // The most frequent event, and of no concern to the context or the open editors.
            return;
          }
          if (tracker.apply(event)) {
            context = tracker.snapshot();
            publisher.changed(context);
          }
          editors = tracker.editors();
        });
  }

  /**
   * The file's unsaved text as its editor last pushed it ({@link EditorEvent.DirtyChanged#text()}),
   * while the file is dirty; empty when it is saved, or its editor does not tell. Safe from any
   * thread, for what reads files on the editor's behalf (the companion's own chat agent).
   */
  public Optional<String> unsavedText(Path file) {
    return tracker.unsavedText(Objects.requireNonNull(file, "file"));
  }

  /** The context as the CLIs will see it after the pending debounce. */
  public IdeContext context() {
    return context;
  }

  /** The diffs waiting for an answer, oldest first. */
  public List<PendingDiff> pendingDiffs() {
    return diffs.pending();
  }

  public Optional<PendingDiff> pendingDiff(DiffId id) {
    return diffs.get(id);
  }

  /**
   * The user accepted diff {@code id}; the CLI that proposed it writes {@code content}. The same as
   * {@link DiffReview#accept} on the handle the host got with it.
   *
   * @param content the accepted text, edits included; null for the text as proposed
   */
  public AnswerResult acceptDiff(DiffId id, String content) {
    return diffs.accept(Objects.requireNonNull(id, "id"), content);
  }

  /**
   * Proposes an edit on behalf of a proposer in this process (a chat agent the companion drives): a
   * pending diff like a CLI's, which the host shows and the user answers; {@link CompanionStatus}
   * and the routes name it by {@code proposerName}. The engine does not write the file: the
   * proposer writes what was accepted. A CLI's later proposal for the same file replaces it, and
   * the reverse.
   *
   * @param file an absolute path inside a workspace root
   * @return completes once with the outcome ({@code Accepted} with the text the user accepted,
   *     edits included, {@code Rejected}, {@code Replaced} or {@code Stopped}), on the thread that
   *     ended the proposal: use the async variants for work that blocks. It completes exceptionally
   *     with an {@link IllegalArgumentException} when the path or file is refused, and with a
   *     {@link DiffViewException} when the host could not show it. Cancelling it withdraws the
   *     proposal.
   */
  public CompletableFuture<DiffOutcome> propose(String proposerName, Path file, String newContent) {
    Objects.requireNonNull(proposerName, "proposerName");
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(newContent, "newContent");
    CompletableFuture<DiffOutcome> outcome;
    try {
      outcome = diffs.propose(proposerName, file.toString(), newContent);
    } catch (DiffBook.DiffRequestException e) {
      return CompletableFuture.failedFuture(new IllegalArgumentException(e.getMessage(), e));
    }
    CompletableFuture<DiffOutcome> answered = new CompletableFuture<>();
    outcome.whenComplete(
        (o, failure) -> {
          if (failure == null) {
            answered.complete(o);
          } else {
            answered.completeExceptionally(
                failure instanceof DiffBook.DiffRequestException refused
                    ? new DiffViewException(refused.getMessage(), refused)
                    : failure);
          }
        });
    answered.whenComplete(
        (o, failure) -> {
          if (failure instanceof CancellationException) {
            outcome.cancel(false);
          }
        });
    return answered;
  }

  /**
   * Proposes a change of several files as one unit (e.g. a rename the editor's refactoring
   * computed) on behalf of a proposer in this process: the host shows every file ({@link
   * CompanionHost#showChange}) and the user decides once for all of them. The engine writes no
   * file: the proposer writes every file of an {@link ChangeOutcome.Accepted} outcome, or none.
   * Before an accept counts, every file is read again: if one changed on disk since this call, the
   * change ends as {@link ChangeOutcome.ChangedOnDisk} and nothing may be written. It neither
   * replaces nor is replaced by a diff for one of its files.
   *
   * @param files each file's proposed whole text, by absolute path inside a workspace root, in the
   *     order to show (use an ordered map); at most 500 files
   * @return completes once with the outcome, on the thread that ended the change: use the async
   *     variants for work that blocks. It completes exceptionally with an {@link
   *     IllegalArgumentException} when a file is refused (why is in its message), and with a {@link
   *     DiffViewException} when the host cannot show the change. Stop ends it as {@code Stopped},
   *     at once after a stop. Cancelling it withdraws the change.
   */
  public CompletableFuture<ChangeOutcome> proposeChange(
      String proposerName, Map<Path, String> files) {
    Objects.requireNonNull(proposerName, "proposerName");
    Map<Path, String> copy = new LinkedHashMap<>();
    files.forEach(
        (path, text) ->
            copy.put(Objects.requireNonNull(path, "path"), Objects.requireNonNull(text, "text")));
    try {
      return changes.propose(DiffId.random(), proposerName, copy);
    } catch (DiffBook.DiffRequestException e) {
      return CompletableFuture.failedFuture(new IllegalArgumentException(e.getMessage(), e));
    }
  }

  /** The changes of several files waiting for an answer, oldest first. */
  public List<PendingChange> pendingChanges() {
    return changes.pending();
  }

  public Optional<PendingChange> pendingChange(DiffId id) {
    return changes.get(id);
  }

  /**
   * The user accepted change {@code id}; the same as {@link ChangeReview#accept} on the handle the
   * host got with it.
   *
   * @param edited the whole text of each file the user edited, by path; the others as proposed
   * @throws IllegalArgumentException when {@code edited} names a file the change does not hold
   */
  public ChangeAnswer acceptChange(DiffId id, Map<Path, String> edited) {
    return changes.accept(Objects.requireNonNull(id, "id"), Map.copyOf(edited));
  }

  /** The user rejected change {@code id}; the same as {@link ChangeReview#reject}. */
  public ChangeAnswer rejectChange(DiffId id) {
    return changes.reject(Objects.requireNonNull(id, "id"));
  }

  /** The user rejected diff {@code id}; the same as {@link DiffReview#reject}. */
  public AnswerResult rejectDiff(DiffId id) {
    return diffs.reject(Objects.requireNonNull(id, "id"));
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
    return "Companion{ide="
        + ideInfo.name()
        + ", port="
        + port()
        + ", workspace="
        + workspacePath()
        + "}";
  }

  /** Sends {@code now} to every CLI; on the engine thread. A slow CLI gets only the newest. */
  private void sendContext(IdeContext now) {
    sessions.notifyAll(CONTEXT_KEY, "ide/contextUpdate", ContextUpdate.of(now));
    listeners.forEach(l -> l.contextSent(now));
  }

  /**
   * Runs a host call on the engine thread, as the threading contract promises, and waits for it.
   */
  private <T> T onEngine(Callable<T> hostCall) {
    try {
      return engine.call(hostCall);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String newToken() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * Called on the thread that noticed; everything the engine does about it runs on the engine
   * thread.
   */
  private final class SessionEvents implements SessionRegistry.Events {
    @Override
    public void connected(ConnectedClient client) {
      log.info("CLI connected: {} {}", client.name(), client.version());
      engine.execute(() -> listeners.forEach(l -> l.clientConnected(client)));
    }

    @Override
    public void streamOpened(String sessionId) {
      // The CLIs expect the current context as soon as their stream opens.
      engine.execute(
          () ->
              sessions.notify(
                  sessionId, CONTEXT_KEY, "ide/contextUpdate", ContextUpdate.of(context)));
    }

    @Override
    public void disconnected(ConnectedClient client, SessionRegistry.Departure why) {
      diffs.clientGone(client.id());
      engine.execute(() -> listeners.forEach(l -> l.clientDisconnected(client)));
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
      this.targets =
          targets.isEmpty() ? EnumSet.noneOf(DiscoveryTarget.class) : EnumSet.copyOf(targets);
      return this;
    }

    /**
     * The IDE's process id, used in file names and for stale-file detection; this JVM's by default.
     */
    public Builder ideProcessId(long pid) {
      this.pid = pid;
      return this;
    }

    /** How long context changes settle before one update goes out; 50 ms by default. */
    public Builder debounce(Duration debounce) {
      this.debounce = positive(debounce, "debounce");
      return this;
    }

    /**
     * How often open streams get a ping, which also detects CLIs that vanished; 30 s by default.
     */
    public Builder keepAliveInterval(Duration interval) {
      this.keepAliveInterval = positive(interval, "keepAliveInterval");
      return this;
    }

    /**
     * How long a session without a stream or request lives before it is closed; 2 min by default.
     */
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

    /**
     * The largest request body accepted on any route; 10 MB by default, as the official companions.
     */
    public Builder maxBodyBytes(int max) {
      if (max < 1024) {
        throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
      }
      this.maxBodyBytes = max;
      return this;
    }

    /**
     * Serves {@code servlet} at {@code pathSpec} on the companion's port, behind the same token and
     * Host checks as {@code /mcp}. Unlike {@code /mcp}, these routes also accept requests from the
     * companion's own origin, so a page it serves can call them.
     */
    public Builder route(String pathSpec, HttpServlet servlet) {
      return addRoute(pathSpec, servlet, false, false);
    }

    /**
     * Serves static assets at {@code pathSpec} without the token (GET and HEAD only; the Host check
     * still applies): a page the user opens in a browser cannot send a bearer header with the
     * navigation. Nothing served here may reveal editor data.
     */
    public Builder publicRoute(String pathSpec, HttpServlet servlet) {
      return addRoute(pathSpec, servlet, true, false);
    }

    /**
     * Serves a stateless MCP server ({@code servlet}, the MCP SDK's {@code
     * HttpServletStatelessServerTransport}) at {@code pathSpec}, behind the token and Host checks,
     * refusing every Origin as {@code /mcp} does; its messages are checked and its errors answered
     * in short JSON-RPC as on {@code /mcp}, never as the SDK's serialized exceptions. POST only.
     */
    public Builder mcpRoute(String pathSpec, HttpServlet servlet) {
      return addRoute(pathSpec, servlet, false, true);
    }

    private Builder addRoute(String pathSpec, HttpServlet servlet, boolean open, boolean mcp) {
      if (!pathSpec.startsWith("/")
          || pathSpec.startsWith(CompanionServer.MCP_PATH)
          || pathSpec.startsWith("/ide/")) {
        throw new IllegalArgumentException(
            "a host route must start with / and not be "
                + CompanionServer.MCP_PATH
                + " nor under /ide/, the companion's own");
      }
      routes.add(
          new CompanionServer.Route(
              pathSpec, Objects.requireNonNull(servlet, "servlet"), open, mcp));
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
