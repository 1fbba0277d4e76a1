package dev.companion4j.cli.testing;

import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code companion4j serve} from the shaded jar, as a user starts it, in an isolated environment.
 */
public final class CompanionProcess implements AutoCloseable {
  public static final JsonMapper JSON = JsonMapper.shared();

  private final Process process;
  private final JsonNode ready;
  private final CliEnvironment env;
  private final StringBuffer stderr;
  private final StringBuffer stdout;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private CompanionProcess(
      Process process,
      JsonNode ready,
      CliEnvironment env,
      StringBuffer stdout,
      StringBuffer stderr) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.ready = ready;
    this.env = env;
  }

  public static Path jar() {
    Path jar = TestPeers.repoRoot().resolve("cli/target/companion4j.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("No " + jar + "; end-to-end tests run after `mvn package`");
    }
    return jar;
  }

  /** {@code companion4j args…} from the shaded jar, on this test's own JVM. */
  public static List<String> command(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"), "-jar", jar().toString()));
    command.addAll(List.of(args));
    return command;
  }

  public static CompanionProcess start(CliEnvironment env, String... extraArgs) {
    return start(env, Map.of(), extraArgs);
  }

  /** {@code serve} in {@code env}, with {@code variables} set or replaced as well. */
  public static CompanionProcess start(
      CliEnvironment env, Map<String, String> variables, String... extraArgs) {
    List<String> command = command("serve", "--workspace", env.workspace().toString());
    command.addAll(List.of(extraArgs));
    return start(command, env, variables);
  }

  /**
   * {@code command}, a {@code serve} started another way (an installed release), in {@code env}'s
   * workspace.
   */
  public static CompanionProcess start(
      List<String> command, CliEnvironment env, Map<String, String> variables) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(env.workspace().toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    pb.environment().putAll(variables);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError("companion did not start", e);
    }
    try {
      StringBuffer err = new StringBuffer();
      StringBuffer out = new StringBuffer();
      Thread drain = new Thread(() -> drain(p.getErrorStream(), err, null), "companion-stderr");
      drain.setDaemon(true);
      drain.start();
      // All of stdout is kept (the ready line first), and read to its end so the companion never
      // blocks on a full pipe.
      CompletableFuture<String> line = new CompletableFuture<>();
      Thread drainOut =
          new Thread(
              () -> {
                drain(p.getInputStream(), out, line);
                line.complete(null);
              },
              "companion-stdout");
      drainOut.setDaemon(true);
      drainOut.start();
      String first = line.get(30, TimeUnit.SECONDS);
      if (first == null) {
        throw new AssertionError("companion exited before ready; stderr:\n" + err);
      }
      return new CompanionProcess(p, JSON.readTree(first), env, out, err);
    } catch (Exception e) {
      // A companion that did not say it was ready within the bound must not outlive the test.
      p.destroyForcibly();
      throw new AssertionError("companion did not start", e);
    }
  }

  private static void drain(
      java.io.InputStream stream, StringBuffer into, CompletableFuture<String> firstLine) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      String l;
      while ((l = in.readLine()) != null) {
        if (firstLine != null) {
          firstLine.complete(l);
        }
        into.append(l).append('\n');
      }
    } catch (IOException e) {
      // Ended with the process.
    }
  }

  public JsonNode ready() {
    return ready;
  }

  public int port() {
    return ready.path("port").asInt();
  }

  public long pid() {
    return process.pid();
  }

  public Path qwenLockFile() {
    return env.qwenHome().resolve("ide").resolve(port() + ".lock");
  }

  public Path geminiFile() {
    return env.tmpDir().resolve("gemini/ide/gemini-ide-server-" + pid() + "-" + port() + ".json");
  }

  /** The token, read where a user's tools read it: the owner-only lock file. */
  public String token() {
    try {
      return JSON.readTree(Files.readString(qwenLockFile())).path("authToken").asString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public HttpResponse<String> post(String path, String json) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public HttpResponse<String> post(String path, Map<String, Object> body) {
    return post(path, JSON.writeValueAsString(body));
  }

  public HttpResponse<String> get(String path) {
    return send(request(path).GET());
  }

  public HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
        .timeout(Duration.ofSeconds(10))
        .header("Authorization", "Bearer " + token());
  }

  public HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Posts an editor event and checks it was taken. */
  public void event(Map<String, Object> event) {
    HttpResponse<String> r = post("/editor/events", event);
    if (r.statusCode() != 204) {
      throw new AssertionError("event " + event + " refused: " + r.statusCode() + " " + r.body());
    }
  }

  public String stderr() {
    return stderr.toString();
  }

  /** Everything written to stdout so far, the ready line included. */
  public String stdout() {
    return stdout.toString();
  }

  /** Whether the process is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The number of threads in the companion's JVM, from {@code /proc/<pid>/status}. */
  public int threadCount() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
        if (l.startsWith("Threads:")) {
          return Integer.parseInt(l.substring("Threads:".length()).trim());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new AssertionError("no Threads: line for pid " + pid());
  }

  /** SIGKILL, as a crash: no cleanup runs. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM, and the exit code. */
  public int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("companion did not stop on SIGTERM");
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      terminate();
    }
  }
}
