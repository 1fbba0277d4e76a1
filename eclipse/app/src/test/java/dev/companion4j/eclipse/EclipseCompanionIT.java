package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Eclipse IDE as scripts/run-eclipse.sh starts it (the workbench from the central repository's
 * bundles, under its own Xvfb) with the plugin: the companion serves the opened project, the real
 * CLIs' IdeClients connect to it, an editor opened through {@code open_file}'s route reaches them
 * as context, a proposal goes to the compare editor and back, and SIGTERM ends it all with the
 * discovery files gone.
 */
class EclipseCompanionIT {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;

  @Test
  void theWorkbenchServesItsProjectToBothClisUntilSigterm() throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    env.file("Hello.txt", "hello\nworld\n");
    Path script = Path.of(System.getProperty("companion4j.repoRoot"), "scripts/run-eclipse.sh");
    ProcessBuilder pb =
        new ProcessBuilder(
            "bash",
            script.toString(),
            "--data",
            root.resolve("eclipse-data").toString(),
            env.workspace().toString());
    // Exactly the test's HOME, QWEN_HOME and TMPDIR, and no DISPLAY: the script's own Xvfb.
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    pb.redirectError(ProcessBuilder.Redirect.appendTo(root.resolve("eclipse.err").toFile()));
    Process eclipse = pb.start();
    try {
      JsonNode ready = readyLine(eclipse).get(BOOT.toSeconds(), TimeUnit.SECONDS);
      int port = ready.get("port").asInt();
      assertThat(ready.get("pid").asLong()).isPositive();
      Path lock = env.qwenHome().resolve("ide/" + port + ".lock");
      assertThat(Files.readString(lock)).contains(env.workspace().toString());
      Companion companion =
          new Companion(port, JSON.readTree(Files.readString(lock)).path("authToken").asString());

      Path hello = env.workspace().resolve("Hello.txt");
      try (CliDriver qwen = CliDriver.start(CliDriver.Cli.QWEN, env.workspace(), env.variables());
          CliDriver gemini =
              CliDriver.start(CliDriver.Cli.GEMINI, env.workspace(), env.variables())) {
        for (CliDriver cli : new CliDriver[] {qwen, gemini}) {
          JsonNode status = cli.connect();
          assertThat(status.get("status").asString())
              .as(cli.cli() + ": " + status)
              .isEqualTo("connected");
          assertThat(status.get("ideDisplayName").asString()).isEqualTo("Eclipse IDE");
        }

        // What the extension's open_file asks: Eclipse opens the editor at the place, and its
        // editor tracking tells both CLIs.
        HttpResponse<String> opened =
            companion.post(
                "/ide/open", Map.of("path", hello.toString(), "line", 2, "character", 3));
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(200);
        for (CliDriver cli : new CliDriver[] {qwen, gemini}) {
          cli.awaitContext(c -> isActiveAt(c, hello, 2, 3), WAIT);
        }

        // A proposal opens in the compare editor; the CLI closing it gets the proposed side back.
        CompletableFuture<JsonNode> answer =
            qwen.send(
                "openDiff", Map.of("filePath", hello.toString(), "newContent", "hello, Eclipse\n"));
        await().atMost(WAIT).until(() -> companion.status().path("pendingDiffs").size() == 1);
        JsonNode closed = qwen.call("closeDiff", Map.of("filePath", hello.toString()));
        assertThat(closed.path("content").asString()).isEqualTo("hello, Eclipse\n");
        assertThat(CliDriver.await(answer, WAIT).path("status").asString()).isEqualTo("rejected");
      }

      eclipse.destroy();
      assertThat(eclipse.waitFor(60, TimeUnit.SECONDS)).as("Eclipse exits on SIGTERM").isTrue();
      assertThat(eclipse.exitValue()).isZero();
      assertThat(lock).doesNotExist();
      try (var files = Files.list(env.tmpDir().resolve("gemini/ide"))) {
        assertThat(files).isEmpty();
      }
    } finally {
      stop(eclipse);
    }
  }

  private static boolean isActiveAt(JsonNode context, Path file, int line, int character) {
    for (JsonNode f : context.path("workspaceState").path("openFiles")) {
      if (f.path("isActive").asBoolean() && f.path("path").asString("").equals(file.toString())) {
        JsonNode cursor = f.path("cursor");
        return cursor.path("line").asInt() == line && cursor.path("character").asInt() == character;
      }
    }
    return false;
  }

  /** The companion's IDE routes, with the token from its lock file, as the extension calls them. */
  private record Companion(int port, String token) {
    HttpResponse<String> post(String path, Map<String, Object> body) throws Exception {
      return send(
          request(path)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    JsonNode status() throws Exception {
      return JSON.readTree(send(request("/ide/status").GET()).body());
    }

    private HttpRequest.Builder request(String path) {
      return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(WAIT)
          .header("Authorization", "Bearer " + token);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
      return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /**
   * Ends a run a failed assertion left behind: SIGTERM first, which the script passes to Eclipse
   * and answers by stopping its Xvfb; whatever outlives that is killed, the script's children
   * included (killing the script alone would orphan them).
   */
  private static void stop(Process script) throws InterruptedException {
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
