package dev.companion4j.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real {@code qwen serve} of the pinned {@code @qwen-code/qwen-code} (test peer), on an
 * OS-assigned loopback port with a temporary {@code HOME} and workspace, its OpenAI-compatible
 * provider pointed at a {@link FakeModelServer}.
 */
public final class QwenDaemon implements AutoCloseable {
  /** The models the daemon is configured with (both served by the fake). */
  public static final String MODEL = "fake-model";

  public static final String OTHER_MODEL = "fake-model-2";

  private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+?)[ ,(]");

  private final Path root;
  private final Path workspace;
  private final String url;

  /** How to start it again: its token and flags, on its port. */
  private final String token;

  private final List<String> extraFlags;
  private Process process;

  private QwenDaemon(
      Process process,
      Path root,
      Path workspace,
      String url,
      String token,
      List<String> extraFlags) {
    this.process = process;
    this.root = root;
    this.workspace = workspace;
    this.url = url;
    this.token = token;
    this.extraFlags = extraFlags;
  }

  /** Starts a daemon without a token (trusted loopback). */
  public static QwenDaemon start(FakeModelServer model) throws IOException {
    return start(model, null);
  }

  /** Starts a daemon; with a token it requires {@code Authorization: Bearer} on every request. */
  public static QwenDaemon start(FakeModelServer model, String token) throws IOException {
    return start(model, token, List.of());
  }

  /** Starts a daemon with extra {@code qwen serve} flags. */
  public static QwenDaemon start(FakeModelServer model, String token, List<String> extraFlags)
      throws IOException {
    return start(model, token, extraFlags, null);
  }

  /** Starts a daemon for {@code workspace}, an existing folder, instead of a temporary one. */
  public static QwenDaemon startIn(Path workspace, FakeModelServer model, String token)
      throws IOException {
    return start(model, token, List.of(), workspace);
  }

  private static QwenDaemon start(
      FakeModelServer model, String token, List<String> extraFlags, Path served)
      throws IOException {
    Path root = Files.createTempDirectory("companion4j-qwen-serve-");
    Path home = Files.createDirectories(root.resolve("home"));
    Path workspace =
        (served == null ? Files.createDirectories(root.resolve("workspace")) : served).toRealPath();
    Files.createDirectories(home.resolve(".qwen"));
    Files.writeString(home.resolve(".qwen/settings.json"), settings(model.baseUrl()));
    Process process = launch(root, workspace, token, 0, extraFlags);
    String url = awaitListening(process, root);
    return new QwenDaemon(process, root, workspace, url, token, List.copyOf(extraFlags));
  }

  /**
   * Starts the daemon again after {@link #kill()} or {@link #terminate()}, on the same port and
   * workspace, as a user restarting it would; its sessions are gone.
   */
  public void restart() throws IOException {
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for qwen serve to end", e);
    }
    process = launch(root, workspace, token, port(), extraFlags);
    awaitListening(process, root);
  }

  private static Process launch(
      Path root, Path workspace, String token, int port, List<String> extraFlags)
      throws IOException {
    Path cli = TestPeers.dir().resolve("node_modules/@qwen-code/qwen-code/cli.js");
    List<String> command =
        new ArrayList<>(
            List.of(
                "node",
                cli.toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--hostname",
                "127.0.0.1",
                "--workspace",
                workspace.toString(),
                "--no-web",
                "--no-token-qr"));
    if (token != null) {
      command.add("--require-auth");
    }
    command.addAll(extraFlags);
    ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
    Map<String, String> env = builder.environment();
    env.keySet()
        .removeIf(
            k -> k.startsWith("OPENAI_") || k.startsWith("QWEN_") || k.startsWith("DASHSCOPE_"));
    env.put("HOME", root.resolve("home").toString());
    env.put("FAKE_MODEL_KEY", "sk-fake-test-key");
    env.put("NO_COLOR", "1");
    if (token != null) {
      env.put("QWEN_SERVER_TOKEN", token);
    }
    builder.redirectErrorStream(true);
    return builder.start();
  }

  private static String awaitListening(Process process, Path root) throws IOException {
    Path log = root.resolve("daemon.log");
    CompletableFuture<String> listening = new CompletableFuture<>();
    Thread reader = new Thread(() -> copyOutput(process, log, listening), "qwen-serve-output");
    reader.setDaemon(true);
    reader.start();
    try {
      return listening.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      process.destroyForcibly();
      throw new AssertionError("qwen serve did not start; its output:\n" + readLog(log), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted while starting qwen serve", e);
    }
  }

  /**
   * The {@code settings.json} that points Qwen Code at {@code modelBaseUrl} with {@link #MODEL} and
   * {@link #OTHER_MODEL}.
   */
  public static String settings(String modelBaseUrl) {
    return """
        {
          "security": {"auth": {"selectedType": "openai"}},
          "model": {"name": "%1$s"},
          "modelProviders": {"openai": [
            {"id": "%1$s", "name": "Fake model", "baseUrl": "%3$s", "envKey": "FAKE_MODEL_KEY"},
            {"id": "%2$s", "name": "Fake model two", "baseUrl": "%3$s", "envKey": "FAKE_MODEL_KEY"}
          ]},
          "ui": {"enableFollowupSuggestions": false},
          "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
          "privacy": {"usageStatisticsEnabled": false},
          "telemetry": {"enabled": false}
        }
        """
        .formatted(MODEL, OTHER_MODEL, modelBaseUrl);
  }

  private static void copyOutput(Process process, Path log, CompletableFuture<String> listening) {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.newLine();
        out.flush();
        Matcher m = LISTENING.matcher(line + " ");
        if (!listening.isDone() && m.find()) {
          listening.complete(m.group(1));
        }
      }
    } catch (IOException e) {
      listening.completeExceptionally(e);
    }
    listening.completeExceptionally(new IOException("qwen serve exited"));
  }

  /** The daemon's base URL, e.g. {@code http://127.0.0.1:43667}. */
  public String url() {
    return url;
  }

  public int port() {
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }

  /** The registered workspace (a real path). */
  public Path workspace() {
    return workspace;
  }

  /** The agent processes ({@code qwen --acp}) the daemon spawned. */
  public List<ProcessHandle> agents() {
    return process
        .descendants()
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains("--acp")).orElse(false))
        .toList();
  }

  /** Kills the daemon and its agents without warning (SIGKILL), as a crash would. */
  public void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /** Asks the daemon to shut down (SIGTERM), as {@code kill} or a service manager would. */
  public void terminate() {
    process.destroy();
  }

  @Override
  public void close() {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
    children.forEach(ProcessHandle::destroyForcibly);
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temp folder is harmless.
    }
  }

  private static String readLog(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "(no output)";
    } catch (IOException e) {
      return "(output unreadable: " + e.getMessage() + ")";
    }
  }
}
