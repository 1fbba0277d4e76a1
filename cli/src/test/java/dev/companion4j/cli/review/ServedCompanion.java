package dev.companion4j.cli.review;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code companion4j serve} from the shaded jar, in an isolated environment, as a user starts it. */
final class ServedCompanion implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.shared();

  private final Process process;
  private final JsonNode ready;
  private final CliEnvironment env;
  private final StringBuffer stderr;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ServedCompanion(Process process, JsonNode ready, CliEnvironment env, StringBuffer stderr) {
    this.process = process;
    this.ready = ready;
    this.env = env;
    this.stderr = stderr;
  }

  static ServedCompanion start(CliEnvironment env) {
    Path jar = TestPeers.repoRoot().resolve("cli/target/companion4j.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("No " + jar + "; these tests run after the package phase");
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder pb =
        new ProcessBuilder(List.of(java, "-jar", jar.toString(), "serve", "--workspace", env.workspace().toString()))
            .directory(env.workspace().toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    try {
      Process p = pb.start();
      StringBuffer err = new StringBuffer();
      Thread drain = new Thread(() -> drain(p, err), "companion-stderr");
      drain.setDaemon(true);
      drain.start();
      String first =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                          .readLine();
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  })
              .get(30, TimeUnit.SECONDS);
      if (first == null) {
        throw new AssertionError("companion exited before ready; stderr:\n" + err);
      }
      return new ServedCompanion(p, JSON.readTree(first), env, err);
    } catch (Exception e) {
      throw new AssertionError("companion did not start", e);
    }
  }

  private static void drain(Process p, StringBuffer into) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
      String l;
      while ((l = in.readLine()) != null) {
        into.append(l).append('\n');
      }
    } catch (IOException e) {
      // Ended with the process.
    }
  }

  int port() {
    return ready.path("port").asInt();
  }

  JsonNode ready() {
    return ready;
  }

  /** The token, read where editors read it: the owner-only lock file. */
  String token() {
    try {
      Path lock = env.qwenHome().resolve("ide").resolve(port() + ".lock");
      return JSON.readTree(Files.readString(lock)).path("authToken").asString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String stderr() {
    return stderr.toString();
  }

  /** Posts an editor event with the token and checks it was taken. */
  void event(Map<String, Object> event) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/editor/events"))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(event)))
            .build();
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 204) {
        throw new AssertionError("event " + event + " refused: " + r.statusCode() + " " + r.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** SIGKILL: the companion vanishes as in a crash. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
