package dev.companion4j.cli.attach;

import dev.companion4j.cli.HeadlessCompanion;
import dev.companion4j.cli.bridge.JsonRpc;
import dev.companion4j.engine.Companion;
import dev.companion4j.wire.SseDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The attachment to a companion, owned by its own thread ({@value #THREAD}): it finds one that
 * proves itself (or starts one in this process), says {@code attached}, forwards its event stream's
 * events, says {@code detached} when it goes, and looks again every {@link #RETRY}. The thread
 * reading stdin only reads {@link #current()} and asks for a start; a watchdog ({@value
 * #WATCHDOG_THREAD}) ends a stream that has been silent past {@link #SILENCE_BOUND}.
 */
final class Link {
  static final String THREAD = "companion4j-attach-stream";
  static final String WATCHDOG_THREAD = "companion4j-attach-watchdog";
  private static final Logger log = LoggerFactory.getLogger(Link.class);

  /** How often a detached attach looks for a companion again. */
  static final Duration RETRY = Duration.ofSeconds(2);

  /** One event may carry a diff's two sides; as long as a line to the editor may be. */
  private static final int MAX_EVENT_BYTES = Attach.MAX_LINE_BYTES;

  private static final Set<String> FORWARDED =
      Set.of(
          "diffOpened",
          "diffClosed",
          "clientConnected",
          "clientDisconnected",
          "context",
          "diagnostics",
          "openFile",
          "codeQuery",
          "changeOpened",
          "changeClosed");
  private static final Duration JOIN_BOUND = Duration.ofSeconds(5);

  /** The stream thread's join and a companion's own stop bounds, with room to spare. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(20);

  /**
   * The companion writes a heartbeat every 5 s: a stream silent for this long belongs to a
   * companion that hangs (stopped, swapping), which is as good as gone.
   */
  static final Duration SILENCE_BOUND = Duration.ofSeconds(15);

  private final Finder finder;
  private final EditorClient client;
  private final Out out;
  private final Path workspace;
  private final boolean startAtFirst;
  private final AtomicReference<Target> current = new AtomicReference<>();
  private final BlockingQueue<CompletableFuture<Target>> startRequests =
      new LinkedBlockingQueue<>();

  /** The companion this process started, if any; it lives until attach ends. */
  private final AtomicReference<HeadlessCompanion> own = new AtomicReference<>();

  private final Thread thread = new Thread(this::run, THREAD);
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, WATCHDOG_THREAD);
            t.setDaemon(true);
            return t;
          });
  private volatile boolean stopping;
  private final AtomicBoolean stopBegun = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile InputStream stream;

  /** When the stream last brought bytes (or opened), in {@link System#nanoTime()}. */
  private volatile long heardAt;

  private volatile boolean silent;

  Link(Finder finder, EditorClient client, Out out, Path workspace, boolean startAtFirst) {
    this.finder = finder;
    this.client = client;
    this.out = out;
    this.workspace = workspace;
    this.startAtFirst = startAtFirst;
  }

  void start() {
    thread.start();
    long check = SILENCE_BOUND.toMillis() / 3;
    watchdog.scheduleWithFixedDelay(this::endSilentStream, check, check, TimeUnit.MILLISECONDS);
  }

  /** Runs on the watchdog: closing the stream ends the stream thread's read with an error. */
  private void endSilentStream() {
    if (stream != null && System.nanoTime() - heardAt > SILENCE_BOUND.toNanos()) {
      silent = true;
      closeStream();
    }
  }

  /** The companion attached now, if any. */
  Optional<Target> current() {
    return Optional.ofNullable(current.get());
  }

  /**
   * Asks for a companion in this process, unless one is attached by the time the stream's thread
   * looks; completes with the attached one, or exceptionally with why none could start.
   */
  CompletableFuture<Target> requestStart() {
    CompletableFuture<Target> answer = new CompletableFuture<>();
    startRequests.add(answer);
    // Attached meanwhile, after the stream's thread took the requests waiting then.
    Target now = current.get();
    if (now != null && startRequests.remove(answer)) {
      answer.complete(now);
    }
    return answer;
  }

  /**
   * Ends the attachment and stops the companion this process started, within bounds. A second call
   * returns once the first has finished: an editor that stops its job closes attach's input and
   * sends SIGTERM together, and the JVM ends when its shutdown hook returns, so the hook must not
   * return while the input's end is still stopping the companion.
   */
  void stop() {
    if (!stopBegun.compareAndSet(false, true)) {
      try {
        if (!stopped.await(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          log.warn("The companion started here did not stop within {}", STOP_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    try {
      stopOnce();
    } finally {
      stopped.countDown();
    }
  }

  private void stopOnce() {
    stopping = true;
    watchdog.shutdownNow();
    closeStream();
    thread.interrupt();
    try {
      thread.join(JOIN_BOUND.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    HeadlessCompanion started = own.getAndSet(null);
    if (started != null) {
      started.close();
    }
  }

  private void run() {
    List<CompletableFuture<Target>> waiting = new ArrayList<>();
    boolean startWanted = startAtFirst;
    String detachedFor = null;
    while (!stopping) {
      Finder.Search search = own.get() != null ? ownSearch() : find();
      if (search.target().isEmpty() && (startWanted || !waiting.isEmpty()) && !stopping) {
        search = startOwn(waiting);
      }
      startWanted = false;
      if (search.target().isPresent()) {
        String why = follow(search.target().get(), waiting);
        if (stopping) {
          break;
        }
        detachedFor = why;
        detached(why);
      } else if (!search.reason().equals(detachedFor)) {
        detachedFor = search.reason();
        detached(detachedFor);
      }
      try {
        CompletableFuture<Target> asked =
            startRequests.poll(RETRY.toMillis(), TimeUnit.MILLISECONDS);
        if (asked != null) {
          waiting.add(asked);
          startRequests.drainTo(waiting);
        }
      } catch (InterruptedException e) {
        break;
      }
    }
    startRequests.drainTo(waiting);
    waiting.forEach(w -> w.completeExceptionally(new IOException("attach is ending")));
  }

  /**
   * A look for a companion; an unexpected failure is a reason to look again, never the thread's
   * end.
   */
  private Finder.Search find() {
    try {
      return finder.find();
    } catch (RuntimeException e) {
      log.warn("Looking for a companion failed", e);
      return Finder.Search.none(
          "looking for a companion failed: "
              + Objects.toString(e.getMessage(), e.getClass().getSimpleName()));
    }
  }

  private void detached(String why) {
    log.info("Detached: {}", why);
    out.notify("detached", JsonRpc.JSON.createObjectNode().put("reason", why));
  }

  /**
   * Starts a companion in this process, as {@code serve} would; tells the waiting requests if it
   * cannot.
   */
  private Finder.Search startOwn(List<CompletableFuture<Target>> waiting) {
    HeadlessCompanion headless = null;
    try {
      headless = HeadlessCompanion.serving(List.of(workspace));
      headless.companion().start();
      own.set(headless);
      if (stopping && own.compareAndSet(headless, null)) {
        // stop() may have looked before the companion was recorded.
        headless.close();
      }
      return ownSearch();
    } catch (IOException | RuntimeException e) {
      if (headless != null) {
        headless.close();
      }
      String why =
          "cannot start a companion for "
              + workspace
              + ": "
              + Objects.toString(e.getMessage(), e.getClass().getSimpleName());
      log.warn("{}", why);
      waiting.forEach(w -> w.completeExceptionally(new IOException(why)));
      waiting.clear();
      return Finder.Search.none(why);
    }
  }

  private Finder.Search ownSearch() {
    HeadlessCompanion headless = own.get();
    if (headless == null) {
      return Finder.Search.none("attach is ending");
    }
    Companion companion = headless.companion();
    return Finder.Search.found(
        new Target(companion.port(), companion.authToken(), true, Optional.empty()));
  }

  /**
   * Follows {@code target} until its stream ends: its state goes out as {@code attached} once its
   * stream is open, so no event falls between the two.
   *
   * @return why it ended
   */
  private String follow(Target target, List<CompletableFuture<Target>> waiting) {
    String where = "the companion on port " + target.port();
    silent = false;
    try (InputStream body = client.events(target)) {
      heardAt = System.nanoTime();
      stream = body;
      if (stopping) {
        return "attach is ending";
      }
      EditorClient.Reply state = client.get(target, "/state");
      if (state.status() != 200 || !state.body().isObject()) {
        return where + " did not give its state: " + state.error();
      }
      // A diff proposed after the stream opened is in the state too; its diffOpened is not
      // repeated.
      Set<String> inState = new HashSet<>();
      state.body().path("pendingDiffs").forEach(d -> inState.add(d.path("id").asString("")));
      current.set(target);
      log.info("Attached to {}{}", where, target.started() ? ", started here" : "");
      ObjectNode attached =
          JsonRpc.JSON
              .createObjectNode()
              .put("port", target.port())
              .put("started", target.started());
      attached.set("state", state.body());
      out.notify("attached", attached);
      startRequests.drainTo(waiting);
      waiting.forEach(w -> w.complete(target));
      waiting.clear();
      SseDecoder events =
          new SseDecoder(
              MAX_EVENT_BYTES,
              SseDecoder.Listener.of(
                  event -> {
                    forward(event.name(), event.data(), inState);
                  },
                  () -> {
                    out.error(
                        "an event from the companion longer than "
                            + (MAX_EVENT_BYTES >> 20)
                            + " MiB was dropped",
                        null);
                  }));
      byte[] buffer = new byte[64 * 1024];
      int n;
      while ((n = body.read(buffer)) >= 0) {
        heardAt = System.nanoTime();
        events.feed(buffer, 0, n);
      }
      events.finish();
      return where + " ended its event stream";
    } catch (IOException e) {
      if (stopping) {
        return "attach is ending";
      }
      return silent
          ? where + " sent nothing for " + SILENCE_BOUND.toSeconds() + " s"
          : "lost " + where + ": " + Objects.toString(e.getMessage(), e.getClass().getSimpleName());
    } finally {
      current.set(null);
      stream = null;
    }
  }

  private void forward(String name, String data, Set<String> inState) {
    if (!FORWARDED.contains(name)) {
      return;
    }
    JsonNode params;
    try {
      params = JsonRpc.JSON.readTree(data);
    } catch (JacksonException e) {
      log.warn("Dropped a {} event from the companion that is not JSON", name);
      return;
    }
    if (name.equals("diffOpened") && inState.remove(params.path("id").asString(""))) {
      return;
    }
    out.notify(name, params);
  }

  private void closeStream() {
    InputStream s = stream;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // Closing is all that was wanted.
      }
    }
  }
}
