package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.internal.TokenRedactor;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code qwen serve} the companion starts for its workspace, as Qwen Code's own VS Code companion
 * does: on a free loopback port, with a fresh token that travels only in the daemon's environment
 * and this process's memory, stopped with the companion.
 *
 * <p>Thread-safe.
 */
public final class SpawnedDaemon implements DaemonSource {
  private static final Logger log = LoggerFactory.getLogger(SpawnedDaemon.class);
  private static final Pattern LISTENING =
      Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final Duration START_LIMIT = Duration.ofSeconds(60);
  private static final Duration STOP_LIMIT = Duration.ofSeconds(5);

  private final String command;
  private final Path workspace;
  private final Map<String, String> env;

  // Guarded by this.
  private Process process;
  private DaemonClient client;
  private boolean closed;

  /** The start under way, which other callers wait for, and its process, which a close stops. */
  private CompletableFuture<DaemonClient> starting;

  private Process startingProcess;

  /**
   * @param command the {@code qwen} program: a path, or a name looked up on this process's {@code
   *     PATH} as {@link ProcessBuilder} does
   * @param env the environment to start it with
   */
  public SpawnedDaemon(String command, Path workspace, Map<String, String> env) {
    this.command = command;
    this.workspace = workspace;
    this.env = Map.copyOf(env);
  }

  /**
   * The client of the running daemon, started first if it is not running. The start waits for the
   * daemon to listen (at most a minute), without a lock: a close meanwhile stops it at once.
   */
  @Override
  public DaemonClient client() throws IOException {
    CompletableFuture<DaemonClient> start;
    DaemonClient stale = null;
    boolean mine = false;
    synchronized (this) {
      if (closed) {
        throw new IOException("the companion is stopping");
      }
      if (process != null && process.isAlive()) {
        return client;
      }
      if (starting == null) {
        starting = new CompletableFuture<>();
        mine = true;
        stale = client;
        client = null;
        process = null;
      }
      start = starting;
    }
    if (mine) {
      if (stale != null) {
        stale.close();
      }
      try {
        start.complete(spawn());
      } catch (IOException | RuntimeException e) {
        start.completeExceptionally(e);
      } finally {
        synchronized (this) {
          starting = null;
          startingProcess = null;
        }
      }
    }
    try {
      return start.get(START_LIMIT.plus(STOP_LIMIT).toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io
          ? io
          : new IOException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("qwen serve did not start within " + START_LIMIT.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while qwen serve started", e);
    }
  }

  private DaemonClient spawn() throws IOException {
    String token = HexFormat.of().formatHex(randomBytes());
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    command,
                    "serve",
                    "--port",
                    "0",
                    "--hostname",
                    "127.0.0.1",
                    "--workspace",
                    workspace.toString(),
                    "--require-auth",
                    "--no-web",
                    "--no-token-qr"))
            .directory(workspace.toFile())
            .redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().put(TOKEN_VARIABLE, token);
    Process started;
    try {
      started = builder.start();
    } catch (IOException e) {
      throw new IOException(
          command.contains(File.separator)
              ? "cannot run " + command + ": " + e.getMessage()
              : command
                  + " is not installed (not on PATH): install Qwen Code with `npm install -g @qwen-code/qwen-code`,"
                  + " or name a running qwen serve instead",
          e);
    }
    boolean stopping;
    synchronized (this) {
      stopping = closed;
      if (!stopping) {
        startingProcess = started;
      }
    }
    if (!stopping) {
      String url;
      try {
        url = awaitListening(started, TokenRedactor.of(token));
      } catch (IOException e) {
        if (isClosed()) {
          throw new IOException("the companion is stopping", e);
        }
        throw e;
      }
      DaemonClient reached =
          DaemonClient.builder()
              .baseUrl(url)
              .token(token)
              .reconnectBudget(RECONNECT_BUDGET)
              .build();
      synchronized (this) {
        if (!closed) {
          process = started;
          client = reached;
          log.info("Started qwen serve at {} for {} (pid {})", url, workspace, started.pid());
          return reached;
        }
      }
      reached.close();
    }
    stop(started);
    throw new IOException("the companion is stopping");
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  /** The address the daemon prints once it listens; its output goes on to the log. */
  private static String awaitListening(Process started, TokenRedactor redactor) throws IOException {
    CompletableFuture<String> listening = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  log.debug("qwen serve: {}", redactor.redact(line));
                  Matcher m = LISTENING.matcher(line);
                  if (!listening.isDone() && m.find()) {
                    listening.complete(m.group(1));
                  }
                }
              } catch (IOException e) {
                listening.completeExceptionally(e);
              }
              listening.completeExceptionally(
                  new IOException(
                      "qwen serve ended before it listened; run it by hand to see why"));
            },
            "companion4j-qwen-serve-output");
    reader.setDaemon(true);
    reader.start();
    try {
      return listening.get(START_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IOException("qwen serve did not start: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      stop(started);
      throw new IOException(
          "qwen serve did not say it listens within " + START_LIMIT.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop(started);
      throw new IOException("interrupted while starting qwen serve", e);
    }
  }

  @Override
  public void close() {
    Process last;
    Process half;
    DaemonClient lastClient;
    synchronized (this) {
      closed = true;
      last = process;
      half = startingProcess;
      lastClient = client;
      process = null;
      startingProcess = null;
      client = null;
    }
    if (lastClient != null) {
      lastClient.close();
    }
    if (last != null) {
      stop(last);
    }
    if (half != null) {
      // Its start ends as it stops: the wait for its address sees the output end.
      stop(half);
    }
  }

  /** SIGTERM to the daemon and its agents, then SIGKILL to what is left after a bound. */
  private static void stop(Process daemon) {
    List<ProcessHandle> agents = daemon.descendants().toList();
    daemon.destroy();
    try {
      if (!daemon.waitFor(STOP_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
        daemon.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      daemon.destroyForcibly();
    }
    agents.forEach(ProcessHandle::destroyForcibly);
  }
}
