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
import java.util.ArrayList;
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
 * as context, a proposal goes to the compare editor and is answered there by a user at the display
 * (edited and accepted, rejected, closed), a proposal whose CLI leaves closes with a message, JDT's
 * compile error is a diagnostic, and SIGTERM ends it all with the discovery files gone.
 */
class EclipseCompanionIT {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * A point in the compare editor's right side: the workbench window opens at the screen's top
   * left, about 1020 by 740 pixels, its editor area right of the Project Explorer.
   */
  private static final String RIGHT_SIDE_X = "850";

  private static final String RIGHT_SIDE_Y = "250";

  @TempDir Path root;

  @Test
  void theWorkbenchServesItsProjectToBothClisUntilSigterm() throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    env.file("Hello.txt", "hello\nworld\n");
    // A Java project, as Eclipse writes one: JDT builds it on import and marks its errors.
    env.file(
        ".project",
        "<projectDescription><name>demo</name><comment/><projects/><buildSpec><buildCommand>"
            + "<name>org.eclipse.jdt.core.javabuilder</name><arguments/></buildCommand></buildSpec>"
            + "<natures><nature>org.eclipse.jdt.core.javanature</nature></natures>"
            + "</projectDescription>\n");
    env.file(
        ".classpath",
        "<classpath><classpathentry kind=\"src\" path=\"src\"/>"
            + "<classpathentry kind=\"con\" path=\"org.eclipse.jdt.launching.JRE_CONTAINER\"/>"
            + "<classpathentry kind=\"output\" path=\"bin\"/></classpath>\n");
    Path broken =
        env.file(
            "src/app/Broken.java", "package app;\n\nclass Broken {\n  int count = \"three\";\n}\n");
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
      String display = displayOf(ready.get("pid").asLong());

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

        // The user edits the proposal (a click in its right side, the text typed at its start)
        // and accepts with the key binding: the CLI gets the edited text.
        JsonNode accepted =
            proposeAndAct(
                qwen,
                companion,
                hello,
                display,
                "keys",
                "ctrl+HOME",
                "type",
                "reviewed ",
                "keys",
                "ctrl+alt+A");
        assertThat(accepted.path("status").asString())
            .as(accepted.toString())
            .isEqualTo("accepted");
        assertThat(accepted.path("content").asString()).isEqualTo("reviewed hello, Eclipse\n");

        // Reject by its key binding, and closing the editor by hand (Ctrl+W): both reject.
        for (String keys : List.of("ctrl+alt+R", "ctrl+W")) {
          JsonNode rejected = proposeAndAct(gemini, companion, hello, display, "keys", keys);
          assertThat(rejected.path("status").asString())
              .as(keys + ": " + rejected)
              .isEqualTo("rejected");
        }

        // Columns count code points: at the end of "😀ab" the caret is at character 4 (5 in UTF-16
        // units); typing there leaves unsaved changes, which reach get_open_editors.
        Path emoji = env.file("Emoji.txt", "😀ab\n");
        assertThat(
                companion
                    .post("/ide/open", Map.of("path", emoji.toString(), "line", 1, "character", 1))
                    .statusCode())
            .isEqualTo(200);
        qwen.awaitContext(c -> isActiveAt(c, emoji, 1, 1), WAIT);
        ScreenUser.act(display, "keys", "END");
        qwen.awaitContext(c -> isActiveAt(c, emoji, 1, 4), WAIT);
        ScreenUser.act(display, "type", "c");
        await()
            .atMost(WAIT)
            .until(
                () -> JSON.readTree(companion.get("/ide/editors").body()).path("editors"),
                editors -> isDirty(editors, emoji));

        // A proposal whose CLI leaves: its editor closes and the user is told why.
        CliDriver leaving = CliDriver.start(CliDriver.Cli.QWEN, env.workspace(), env.variables());
        try {
          leaving.connect();
          leaving.send("openDiff", Map.of("filePath", hello.toString(), "newContent", "gone\n"));
          await().atMost(WAIT).until(() -> companion.status().path("pendingDiffs").size() == 1);
        } finally {
          leaving.kill();
        }
        Path log = root.resolve("eclipse-data/.metadata/.log");
        await()
            .atMost(WAIT)
            .until(
                () ->
                    Files.exists(log)
                        && Files.readString(log)
                            .contains("The CLI that proposed the edit to Hello.txt has left"));
        assertThat(companion.status().path("pendingDiffs").size()).isZero();

        // JDT's compile error, as the extension's get_diagnostics asks for it, with its range.
        assertThat(companion.post("/ide/open", Map.of("path", broken.toString())).statusCode())
            .isEqualTo(200);
        await()
            .atMost(WAIT)
            .until(
                () -> companion.get("/ide/diagnostics?path=" + broken).body(),
                body -> body.contains("Type mismatch: cannot convert from String to int"));
        JsonNode diagnostic =
            JSON.readTree(companion.get("/ide/diagnostics?path=" + broken).body())
                .path("files")
                .path(0)
                .path("diagnostics")
                .path(0);
        assertThat(diagnostic.path("severity").asString()).isEqualTo("error");
        assertThat(diagnostic.path("range").path("startLine").asInt()).isEqualTo(4);
        assertThat(diagnostic.path("range").path("startCharacter").asInt()).isEqualTo(15);
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

  /**
   * Sends a proposal for {@code file}, clicks into the compare editor's right side once it shows,
   * does {@code steps} there as a user, and returns the CLI's answer.
   */
  private JsonNode proposeAndAct(
      CliDriver cli, Companion companion, Path file, String display, String... steps)
      throws Exception {
    CompletableFuture<JsonNode> answer =
        cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", "hello, Eclipse\n"));
    await().atMost(WAIT).until(() -> companion.status().path("pendingDiffs").size() == 1);
    // What the screen showed, kept in the build's folder for whoever reads a failure.
    ScreenUser.act(display, "shot", Path.of("target", "EclipseCompanionIT-diff.png").toString());
    List<String> all = new ArrayList<>(List.of("click", RIGHT_SIDE_X, RIGHT_SIDE_Y));
    all.addAll(List.of(steps));
    ScreenUser.act(display, all.toArray(String[]::new));
    return CliDriver.await(answer, WAIT);
  }

  /** The X display the script started Eclipse on, from the Eclipse process's environment. */
  static String displayOf(long pid) throws IOException {
    for (String variable : Files.readString(Path.of("/proc/" + pid + "/environ")).split("\0")) {
      if (variable.startsWith("DISPLAY=")) {
        return variable.substring("DISPLAY=".length());
      }
    }
    throw new AssertionError("Eclipse runs without DISPLAY");
  }

  private static boolean isDirty(JsonNode editors, Path file) {
    for (JsonNode e : editors) {
      if (e.path("path").asString("").equals(file.toString())) {
        return e.path("dirty").asBoolean();
      }
    }
    return false;
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
  record Companion(int port, String token) {
    HttpResponse<String> post(String path, Map<String, Object> body) throws Exception {
      return send(
          request(path)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    HttpResponse<String> get(String path) throws Exception {
      return send(request(path).GET());
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
  static void stop(Process script) throws InterruptedException {
    List<ProcessHandle> children = script.descendants().toList();
    script.destroy();
    if (!script.waitFor(30, TimeUnit.SECONDS)) {
      script.destroyForcibly();
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }

  /** The first line of standard output that is the ready event; the rest is read and dropped. */
  static CompletableFuture<JsonNode> readyLine(Process process) {
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
