package dev.companion4j.eclipse;

import dev.companion4j.testkit.CliEnvironment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Eclipse IDE as scripts/run-eclipse.sh starts it for a test: exactly the test's HOME,
 * QWEN_HOME and TMPDIR (and no DISPLAY: the script's own Xvfb), plus the variables the test adds;
 * up once the ready line came. Closing it ends a run a failed assertion left behind.
 */
final class EclipseRun implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Process script;
  private final int port;
  private final long pid;

  private EclipseRun(Process script, int port, long pid) {
    this.script = script;
    this.port = port;
    this.pid = pid;
  }

  /** Starts it on {@code env}'s workspace, its data and standard error under {@code root}. */
  static EclipseRun start(Path root, CliEnvironment env, Map<String, String> extra, Duration boot)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    Map<String, String> variables = new HashMap<>(env.variables());
    variables.putAll(extra);
    return start(root, variables, boot, env.workspace());
  }

  /**
   * Starts it in exactly {@code variables}, importing the {@code projects}, its data and standard
   * error under {@code root}; returns once the ready line came.
   */
  static EclipseRun start(Path root, Map<String, String> variables, Duration boot, Path... projects)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    Path script = Path.of(System.getProperty("companion4j.repoRoot"), "scripts/run-eclipse.sh");
    List<String> command =
        new ArrayList<>(
            List.of("bash", script.toString(), "--data", root.resolve("eclipse-data").toString()));
    for (Path project : projects) {
      command.add(project.toString());
    }
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().clear();
    pb.environment().putAll(variables);
    pb.redirectError(ProcessBuilder.Redirect.appendTo(root.resolve("eclipse.err").toFile()));
    Process process = pb.start();
    try {
      JsonNode ready = readyLine(process).get(boot.toSeconds(), TimeUnit.SECONDS);
      return new EclipseRun(process, ready.get("port").asInt(), ready.get("pid").asLong());
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      stop(process);
      throw e;
    }
  }

  /** The Eclipse JVM's process id, from the ready line. */
  long pid() {
    return pid;
  }

  /** The companion's port when it first served. */
  int port() {
    return port;
  }

  Process script() {
    return script;
  }

  /** The X display the script started Eclipse on, from the Eclipse process's environment. */
  String display() throws IOException {
    for (String variable : Files.readString(Path.of("/proc/" + pid + "/environ")).split("\0")) {
      if (variable.startsWith("DISPLAY=")) {
        return variable.substring("DISPLAY=".length());
      }
    }
    throw new AssertionError("Eclipse runs without DISPLAY");
  }

  /**
   * SIGTERM first, which the script passes to Eclipse and answers by stopping its Xvfb; whatever
   * outlives that is killed, the script's children included (killing the script alone would orphan
   * them).
   */
  @Override
  public void close() throws InterruptedException {
    stop(script);
  }

  static void stop(Process script) throws InterruptedException {
    List<ProcessHandle> children = script.descendants().toList();
    script.destroy();
    if (!script.waitFor(30, TimeUnit.SECONDS)) {
      script.destroyForcibly();
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }

  /** The first line of standard output that is the ready event; the rest is read and dropped. */
  private static CompletableFuture<JsonNode> readyLine(Process process) {
    CompletableFuture<JsonNode> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  if (!ready.isDone() && line.startsWith("{\"event\":\"ready\"")) {
                    ready.complete(JSON.readTree(line));
                  }
                }
                ready.completeExceptionally(
                    new IOException("Eclipse ended without the ready line"));
              } catch (IOException | RuntimeException e) {
                ready.completeExceptionally(e);
              }
            },
            "eclipse-stdout");
    reader.setDaemon(true);
    reader.start();
    return ready;
  }
}
