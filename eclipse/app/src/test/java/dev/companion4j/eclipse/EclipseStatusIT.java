package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.eclipse.WorkbenchProbe.Widget;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The companion's status line item, its view and its preference page in the booted workbench, read
 * and pressed through the widget probe: the status line names the real Qwen Code IdeClient while it
 * is connected and says "no CLI" once it left; a click opens the CLI Companion view, which lists
 * the CLI, the port, the workspace and the pending proposal, whose row brings its compare editor
 * forward; Gemini CLI switched off in the preference page takes its discovery file away.
 */
class EclipseStatusIT {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String STATUS = "companion4j.status";
  private static final String REPORT = "companion4j.view.report";
  private static final String PROPOSALS = "companion4j.view.proposals";
  private static final String TOKEN = "companion4j.prefs.daemonToken";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;

  @Test
  void theStatusLineTheViewAndThePreferencePageFollowTheCompanion() throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    Path hello = env.file("Hello.txt", "hello\n");
    Path probeFile = root.resolve("probe.address");
    Map<String, String> probe = WorkbenchProbe.variables(root.resolve("probe"), probeFile);
    try (EclipseRun eclipse = EclipseRun.start(root, env, probe, BOOT)) {
      WorkbenchProbe workbench = WorkbenchProbe.await(probeFile, BOOT);
      int port = eclipse.port();
      awaitStatus(workbench, "CLI companion :" + port + " \u00b7 no CLI");

      try (CliDriver qwen = CliDriver.start(CliDriver.Cli.QWEN, env.workspace(), env.variables())) {
        assertThat(qwen.connect().path("status").asString()).isEqualTo("connected");
        // The CLI as the companion knows it: its program (the process behind the IdeClient) and
        // its label (program and pid).
        Path lock = env.qwenHome().resolve("ide/" + port + ".lock");
        JsonNode client = ide(lock, "/ide/status", null).path("clients");
        assertThat(client.size()).isOne();
        String program = client.path(0).path("program").asString();
        String label = client.path(0).path("label").asString();
        assertThat(program).isNotEmpty();
        Widget connected = awaitStatus(workbench, "CLI companion :" + port + " \u00b7 " + program);
        assertThat(connected.tooltip()).contains("Connected:\n  " + label);

        CompletableFuture<JsonNode> answer =
            qwen.send("openDiff", Map.of("filePath", hello.toString(), "newContent", "hi\n"));
        awaitStatus(workbench, "CLI companion :" + port + " \u00b7 " + program + " \u00b7 1 diff");

        // A click on the status line opens the view: the same facts, and the proposal's row.
        workbench.press(STATUS);
        Widget report =
            await()
                .atMost(WAIT)
                .until(() -> workbench.find(REPORT), w -> w.isPresent())
                .orElseThrow();
        assertThat(report.text())
            .contains(
                "Listening on 127.0.0.1:" + port,
                env.workspace().toString(),
                "Connected CLIs:\n  " + label,
                "Pending diffs: 1",
                env.qwenHome().resolve("ide/" + port + ".lock").toString());
        String row = workbench.find(PROPOSALS).orElseThrow().state();
        assertThat(row).startsWith("Hello.txt").contains("(from " + program + ")");
        // For the docs: the view (maximized, as a double-click on its tab does) and the status
        // line.
        int height = report.height();
        workbench.exec("org.eclipse.ui.window.maximizePart");
        await()
            .atMost(WAIT)
            .until(() -> workbench.find(REPORT).orElseThrow().height() > height * 2);
        ScreenUser.act(
            eclipse.display(), "shot", Path.of("target", "EclipseStatusIT-status.png").toString());
        workbench.exec("org.eclipse.ui.window.maximizePart");
        await().atMost(WAIT).until(() -> workbench.find(REPORT).orElseThrow().height() == height);

        // With the file's own editor in front, the toolbar has no Reject; the row brings the
        // compare editor forward, whose toolbar then offers it.
        ide(lock, "/ide/open", "{\"path\":" + JSON.writeValueAsString(hello.toString()) + "}");
        await().atMost(WAIT).until(() -> workbench.find("Reject").isEmpty());
        workbench.press(row);
        await().atMost(WAIT).until(() -> workbench.find("Reject").isPresent());
        workbench.press("Reject");
        assertThat(CliDriver.await(answer, WAIT).path("status").asString()).isEqualTo("rejected");
        awaitStatus(workbench, "CLI companion :" + port + " \u00b7 " + program);
      }
      awaitStatus(workbench, "CLI companion :" + port + " \u00b7 no CLI");

      // Gemini CLI off in Window > Preferences > CLI Companion: its discovery file goes, Qwen
      // Code's stays (the companion restarts, on a new port).
      Path geminiFiles = env.tmpDir().resolve("gemini/ide");
      assertThat(files(geminiFiles))
          .isNotEmpty()
          .allMatch(f -> f.getFileName().toString().endsWith("-" + port + ".json"));
      workbench.exec(
          "org.eclipse.ui.window.preferences",
          "preferencePageId=dev.companion4j.eclipse.prefs.page");
      Widget gemini =
          await()
              .atMost(WAIT)
              .until(() -> workbench.find("Gemini CLI"), w -> w.isPresent())
              .orElseThrow();
      assertThat(gemini.state()).isEqualTo("checked");
      workbench.press("Gemini CLI");
      workbench.press("Apply and Close");
      await().atMost(WAIT).until(() -> files(geminiFiles).isEmpty());
      String restarted =
          await()
              .atMost(WAIT)
              .until(
                  () -> workbench.find(STATUS).orElseThrow().text(),
                  t ->
                      t.matches("CLI companion :\\d+ \u00b7 no CLI")
                          && !t.contains(":" + port + " "));
      String newPort = restarted.replaceAll("\\D", "");
      assertThat(env.qwenHome().resolve("ide/" + newPort + ".lock")).exists();

      // The daemon's token goes to Eclipse's secure storage, encrypted, or nowhere: this
      // installation has no password provider for it, so the page says so and keeps it nowhere.
      workbench.exec(
          "org.eclipse.ui.window.preferences",
          "preferencePageId=dev.companion4j.eclipse.prefs.page");
      await().atMost(WAIT).until(() -> workbench.find(TOKEN).isPresent());
      workbench.setText(TOKEN, "daemon-secret-4711");
      workbench.press("Apply");
      // The dialog's message line shows it shortened, the whole of it in its tooltip.
      await()
          .atMost(WAIT)
          .until(
              () -> workbench.widgets().stream().map(Widget::tooltip).toList(),
              tips ->
                  tips.contains(
                      "The daemon token was not saved: No secure storage modules found."));
      workbench.press("Cancel");
      await().atMost(WAIT).until(() -> workbench.find(TOKEN).isEmpty());
      for (Path dir : List.of(env.home(), root.resolve("eclipse-data"))) {
        try (Stream<Path> all = Files.walk(dir)) {
          for (Path f : all.filter(Files::isRegularFile).toList()) {
            assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                .as(f.toString())
                .doesNotContain("daemon-secret-4711");
          }
        }
      }
    }
  }

  /**
   * An {@code /ide/} route of the companion of {@code lock}, with its token, as the extension asks
   * it: a GET, or a POST of {@code json}.
   */
  private static JsonNode ide(Path lock, String route, String json) throws Exception {
    String token = JSON.readTree(Files.readString(lock)).path("authToken").asString();
    int port = Integer.parseInt(lock.getFileName().toString().replace(".lock", ""));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + route))
            .timeout(WAIT)
            .header("Authorization", "Bearer " + token);
    if (json != null) {
      request.header("Content-Type", "application/json");
      request.POST(HttpRequest.BodyPublishers.ofString(json));
    }
    HttpResponse<String> response =
        HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(route + ": " + response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  /** Waits until the status line shows {@code text}, and returns it. */
  private static Widget awaitStatus(WorkbenchProbe workbench, String text) {
    return await()
        .atMost(WAIT)
        .until(() -> workbench.find(STATUS), w -> w.isPresent() && w.get().text().equals(text))
        .orElseThrow();
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
