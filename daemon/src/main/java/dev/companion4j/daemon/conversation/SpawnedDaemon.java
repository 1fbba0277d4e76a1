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
 * A {@code qwen serve} the companion starts for its workspace, as Qwen Code's own VS Code
 * companion does: on a free loopback port, with a fresh token that travels only in the daemon's
 * environment and this process's memory, stopped with the companion.
 *
 * <p>Thread-safe.
 */
public final class SpawnedDaemon implements DaemonSource {
  private static final Logger log = LoggerFactory.getLogger(SpawnedDaemon.class);
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final Duration START_LIMIT = Duration.ofSeconds(60);
  private static final Duration STOP_LIMIT = Duration.ofSeconds(5);

  private final String command;
  private final Path workspace;
  private final Map<String, String> env;

  // Guarded by this.
  private Process process;
  private DaemonClient client;
  private boolean closed;

  /**
   * @param command the {@code qwen} program: a path, or a name looked up on this process's
   *     {@code PATH} as {@link ProcessBuilder} does
   * @param env the environment to start it with
   */
  public SpawnedDaemon(String command, Path workspace, Map<String, String> env) {
    this.command = command;
    this.workspace = workspace;
    this.env = Map.copyOf(env);
  }

  @Override
  public synchronized DaemonClient client() throws IOException {
    if (closed) {
      throw new IOException("the companion is stopping");
    }
    if (process != null && process.isAlive()) {
      return client;
    }
    if (client != null) {
      client.close();
    }
    String token = HexFormat.of().formatHex(randomBytes());
    ProcessBuilder builder = new ProcessBuilder(List.of(
        command, "serve", "--port", "0", "--hostname", "127.0.0.1",
        "--workspace", workspace.toString(), "--require-auth", "--no-web", "--no-token-qr"))
        .directory(workspace.toFile())
        .redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().put(TOKEN_VARIABLE, token);
    Process started;
    try {
      started = builder.start();
    } catch (IOException e) {
      throw new IOException(command.contains(File.separator)
          ? "cannot run " + command + ": " + e.getMessage()
          : command + " is not installed (not on PATH): install Qwen Code with `npm install -g @qwen-code/qwen-code`,"
              + " or name a running qwen serve instead", e);
    }
    String url = awaitListening(started, TokenRedactor.of(token));
    process = started;
    client = DaemonClient.builder().baseUrl(url).token(token).reconnectBudget(RECONNECT_BUDGET).build();
    log.info("Started qwen serve at {} for {} (pid {})", url, workspace, started.pid());
    return client;
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  /** The address the daemon prints once it listens; its output goes on to the log. */
  private static String awaitListening(Process started, TokenRedactor redactor) throws IOException {
    CompletableFuture<String> listening = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
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
      listening.completeExceptionally(new IOException("qwen serve ended before it listened; run it by hand to see why"));
    }, "companion4j-qwen-serve-output");
    reader.setDaemon(true);
    reader.start();
    try {
      return listening.get(START_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IOException("qwen serve did not start: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      stop(started);
      throw new IOException("qwen serve did not say it listens within " + START_LIMIT.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop(started);
      throw new IOException("interrupted while starting qwen serve", e);
    }
  }

  @Override
  public void close() {
    Process last;
    DaemonClient lastClient;
    synchronized (this) {
      closed = true;
      last = process;
      lastClient = client;
      process = null;
      client = null;
    }
    if (lastClient != null) {
      lastClient.close();
    }
    if (last != null) {
      stop(last);
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
