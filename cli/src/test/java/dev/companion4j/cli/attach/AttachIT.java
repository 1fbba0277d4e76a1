package dev.companion4j.cli.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.PortSquatter;
import dev.companion4j.engine.DiffId;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.JsonNode;

/**
 * {@code companion4j attach} from the shaded jar, spoken to as an editor plugin speaks to it,
 * against a real companion and the real CLIs' IdeClients: what the editor sends reaches the CLI,
 * what the CLI proposes reaches the editor, and nothing reaches a server that cannot prove itself.
 */
// Its tests mostly wait on the companion's own bounds; each has its own companion and folder.
@Execution(ExecutionMode.CONCURRENT)
class AttachIT {
  private static final Duration WAIT = AttachProcess.WAIT;

  @TempDir Path temp;

  @Test
  void aRealClisProposalReachesTheEditorAndItsAnswersReachTheCliOnce() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("src/Main.java", "class Main {}\n");
    try (CompanionProcess companion = CompanionProcess.start(env);
        CliDriver qwen = CliDriver.start(Cli.QWEN, env.workspace(), env.variables());
        AttachProcess attach = AttachProcess.start(env)) {
      assertThat(qwen.connect().path("status").asString()).as(qwen.stderr()).isEqualTo("connected");
      JsonNode attached = attach.awaitNotification("attached");
      assertThat(attached.path("port").asInt()).isEqualTo(companion.port());
      assertThat(attached.path("started").asBoolean()).isFalse();
      assertThat(attached.path("state").path("workspaceRoots").toString())
          .contains(env.workspace().toString());

      attach.notify(
          "event", Map.of("type", "cursor", "path", file.toString(), "line", 1, "character", 7));
      qwen.awaitContext(
          c -> c.toString().contains(file.toString()) && c.toString().contains("\"character\":7"),
          WAIT);

      CompletableFuture<JsonNode> accepted =
          qwen.send(
              "openDiff", Map.of("filePath", file.toString(), "newContent", "class Main { }\n"));
      JsonNode opened =
          attach.awaitNotification(
              "diffOpened", d -> d.path("filePath").asString().equals(file.toString()));
      String id = opened.path("id").asString();
      assertThat(DiffId.isValid(id)).as(opened.toString()).isTrue();
      assertThat(
              attach
                  .request("diff", Map.of("diff", id))
                  .path("result")
                  .path("newContent")
                  .asString())
          .isEqualTo("class Main { }\n");
      assertThat(attach.request("state").path("result").path("pendingDiffs").toString())
          .contains(id);

      JsonNode answer =
          attach.request("accept", Map.of("diff", id, "content", "class Main { int edited; }\n"));
      assertThat(answer.path("result").isObject()).as(answer.toString()).isTrue();
      JsonNode heard = CliDriver.await(accepted, WAIT);
      assertThat(heard.path("status").asString()).as(heard.toString()).isEqualTo("accepted");
      assertThat(heard.path("content").asString()).isEqualTo("class Main { int edited; }\n");
      assertThat(
              attach
                  .awaitNotification("diffClosed", d -> d.path("id").asString().equals(id))
                  .path("outcome")
                  .asString())
          .isEqualTo("accepted");

      JsonNode again = attach.request("reject", Map.of("diff", id));
      assertThat(again.path("error").path("code").asString())
          .as(again.toString())
          .isEqualTo("ended");
      assertThat(again.path("error").path("outcome").asString()).isEqualTo("accepted");

      CompletableFuture<JsonNode> rejected =
          qwen.send(
              "openDiff", Map.of("filePath", file.toString(), "newContent", "class Other {}\n"));
      String second =
          attach
              .awaitNotification("diffOpened", d -> !d.path("id").asString().equals(id))
              .path("id")
              .asString();
      assertThat(attach.request("reject", Map.of("diff", second)).has("result")).isTrue();
      assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");
      assertThat(
              attach
                  .request("accept", Map.of("diff", second))
                  .path("error")
                  .path("code")
                  .asString())
          .isEqualTo("ended");
      assertThat(file).as("the CLI writes files, attach never does").hasContent("class Main {}\n");

      JsonNode terminal = attach.request("terminal").path("result");
      assertThat(terminal.path(Cli.QWEN.portVariable()).asString())
          .isEqualTo(Integer.toString(companion.port()));

      assertThat(attach.unreadable()).isEmpty();
      assertThat(attach.stderr()).doesNotContain(companion.token());
      assertThat(attach.closeInput()).isZero();
      assertThat(companion.isAlive()).as("a companion attach did not start lives on").isTrue();
    }
  }

  @Test
  void withStartAndNoCompanionItRunsOneThatACliJoinsAndStopsItWhenItsInputEnds() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (AttachProcess attach = AttachProcess.start(env, "--start")) {
      JsonNode attached = attach.awaitNotification("attached");
      assertThat(attached.path("started").asBoolean()).isTrue();
      int port = attached.path("port").asInt();
      Path lock = env.qwenHome().resolve("ide").resolve(port + ".lock");
      assertThat(lock).exists();
      assertThat(attach.request("start").path("result").toString())
          .isEqualTo("{\"port\":" + port + ",\"started\":true}");

      try (CliDriver gemini = CliDriver.start(Cli.GEMINI, env.workspace(), env.variables())) {
        assertThat(gemini.connect().path("status").asString())
            .as(gemini.stderr())
            .isEqualTo("connected");
        attach.awaitNotification("clientConnected");
      }
      String token =
          CompanionProcess.JSON.readTree(Files.readString(lock)).path("authToken").asString();
      assertThat(attach.closeInput()).isZero();
      assertThat(lock)
          .as("the companion it started removed its files as it stopped")
          .doesNotExist();
      assertThat(attach.stderr()).doesNotContain(token);
      assertThat(attach.notifications("detached"))
          .as("it never went away while attach ran")
          .isEmpty();
    }
  }

  @Test
  void itDetachesWhenTheCompanionGoesAndAttachesToTheNextThatProvesItself() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (AttachProcess attach = AttachProcess.start(env)) {
      JsonNode none = attach.awaitNotification("detached");
      assertThat(none.path("reason").asString()).contains("no companion serves " + env.workspace());
      assertThat(attach.request("state").path("error").path("code").asString())
          .isEqualTo("detached");

      int first;
      try (CompanionProcess companion = CompanionProcess.start(env)) {
        first = companion.port();
        assertThat(attach.awaitNotification("attached").path("port").asInt()).isEqualTo(first);
        companion.kill();
      }
      attach.awaitNotification(
          "detached", d -> d.path("reason").asString().contains("port " + first));
      try (CompanionProcess next = CompanionProcess.start(env)) {
        JsonNode again =
            attach.awaitNotification("attached", a -> a.path("port").asInt() == next.port());
        assertThat(again.path("started").asBoolean()).isFalse();
        assertThat(attach.request("state").path("result").path("workspaceRoots").toString())
            .contains(env.workspace().toString());
        assertThat(attach.request("start").path("result").toString())
            .isEqualTo("{\"port\":" + next.port() + ",\"started\":false}");
      }
      assertThat(attach.closeInput()).isZero();
    }
  }

  @Test
  void badInputGetsAClearErrorAndServingGoesOn() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("real.txt", "x\n");
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess attach = AttachProcess.start(env)) {
      attach.awaitNotification("attached");
      attach.write("not json\n");
      assertThat(
              attach
                  .awaitNotification(
                      "error", e -> e.path("message").asString().contains("not JSON"))
                  .has("method"))
          .isFalse();
      attach.write("[1,2]\n");
      attach.awaitNotification(
          "error", e -> e.path("message").asString().contains("one JSON object per line"));
      attach.write("{\"id\":{\"x\":1},\"method\":\"state\"}\n");
      attach.awaitNotification(
          "error", e -> e.path("message").asString().contains("id is a number or a string"));
      attach.write("{\"method\":\"explode\"}\n");
      assertThat(
              attach
                  .awaitNotification(
                      "error", e -> e.path("message").asString().contains("unknown notification"))
                  .path("method")
                  .asString())
          .isEqualTo("explode");

      attach.write("{\"id\":\"s1\",\"method\":\"explode\"}\n");
      assertThat(attach.answer("s1").path("error").path("code").asString())
          .isEqualTo("unknownMethod");
      attach.write("{\"id\":2.5}\n");
      assertThat(attach.answer(2.5).path("error").path("code").asString())
          .isEqualTo("unknownMethod");
      for (Object params :
          List.of(Map.of(), Map.of("diff", "0123456789ABCDEF"), Map.of("diff", 5), List.of(1))) {
        assertThat(attach.request("accept", params).path("error").path("code").asString())
            .as(params.toString())
            .isEqualTo("invalidParams");
      }
      assertThat(
              attach
                  .request("accept", Map.of("diff", "0123456789abcdef", "content", 5))
                  .path("error")
                  .path("code")
                  .asString())
          .isEqualTo("invalidParams");
      JsonNode unknown = attach.request("reject", Map.of("diff", "0123456789abcdef"));
      assertThat(unknown.path("error").path("code").asString())
          .as(unknown.toString())
          .isEqualTo("unknownDiff");
      assertThat(
              attach
                  .request("diff", Map.of("diff", "0123456789abcdef"))
                  .path("error")
                  .path("code")
                  .asString())
          .isEqualTo("unknownDiff");

      attach.notify("event", Map.of("type", "focus", "path", "relative.txt"));
      JsonNode refused =
          attach.awaitNotification("error", e -> "event".equals(e.path("method").asString(null)));
      assertThat(refused.path("message").asString()).contains("path must be absolute");
      assertThat(
              attach
                  .request("event", Map.of("type", "explode"))
                  .path("error")
                  .path("message")
                  .asString())
          .contains("unknown event type");

      // A line past 64 MiB is skipped as it streams in, never held.
      byte[] chunk = new byte[1024 * 1024];
      Arrays.fill(chunk, (byte) 'a');
      attach.write("{\"id\":99,\"method\":\"state\",\"params\":{\"x\":\"");
      for (int i = 0; i < 65; i++) {
        attach.write(chunk);
      }
      attach.write("\"}}\n");
      attach.awaitNotification(
          "error", e -> e.path("message").asString().contains("longer than 64 MiB"));

      JsonNode state = attach.request("state");
      assertThat(state.path("result").path("workspaceRoots").toString())
          .contains(env.workspace().toString());
      assertThat(attach.notifications("attached")).hasSize(1);
      assertThat(attach.unreadable()).isEmpty();
      attach.notify("event", Map.of("type", "focus", "path", file.toString()));
      await()
          .atMost(WAIT)
          .until(() -> companion.get("/editor/state").body().contains(file.toString()));
      assertThat(attach.answers(99)).as("the skipped line was no request").isEmpty();
    }
  }

  @Test
  void aServerThatCannotProveItselfNeverGetsTheTokenWhetherDiscoveredOrNamed() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (PortSquatter squatter = PortSquatter.plantedIn(env)) {
      try (AttachProcess attach = AttachProcess.start(env)) {
        attach.awaitNotification(
            "detached", d -> d.path("reason").asString().contains("no companion serves"));
        await()
            .atMost(WAIT)
            .until(
                () ->
                    squatter.requests().stream()
                            .filter(r -> r.uri().startsWith("/ide/proof"))
                            .count()
                        >= 2);
        assertThat(attach.request("state").path("error").path("code").asString())
            .isEqualTo("detached");

        // The editor asks for a companion of its own: it gets one, and the squatter still nothing.
        JsonNode started = attach.request("start").path("result");
        assertThat(started.path("started").asBoolean()).as(started.toString()).isTrue();
        assertThat(attach.awaitNotification("attached").path("port").asInt())
            .isEqualTo(started.path("port").asInt());
        assertThat(attach.closeInput()).isZero();
        assertThat(attach.stderr()).doesNotContain(PortSquatter.TOKEN);
      }
      try (AttachProcess named =
          AttachProcess.start(
              env,
              Map.of(
                  Finder.API_VARIABLE,
                  "http://127.0.0.1:" + squatter.port() + "/editor",
                  Finder.TOKEN_VARIABLE,
                  PortSquatter.TOKEN))) {
        assertThat(named.awaitNotification("detached").path("reason").asString())
            .contains(
                "the companion "
                    + Finder.API_VARIABLE
                    + " names (port "
                    + squatter.port()
                    + ") does not prove");
        assertThat(named.request("terminal").path("error").path("code").asString())
            .isEqualTo("detached");
        assertThat(named.closeInput()).isZero();
        assertThat(named.stderr()).doesNotContain(PortSquatter.TOKEN);
        for (String method : List.of("attached", "diffOpened", "openFile")) {
          assertThat(named.notifications(method)).as(method).isEmpty();
        }
      }
      assertThat(squatter.wasChallenged()).isTrue();
      assertThat(squatter.requests()).noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void aCompanionNamedOnlyHalfOrNotOnLoopbackIsABadCommandLine() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Map<String, String> half = new LinkedHashMap<>(env.variables());
    half.put(Finder.TOKEN_VARIABLE, "secret-token-for-this-test");
    JarCommand onlyToken = JarCommand.run(half, env.workspace(), temp, "attach");
    assertThat(onlyToken.exitCode()).isEqualTo(2);
    assertThat(onlyToken.stderr())
        .contains("only " + Finder.TOKEN_VARIABLE + " is set")
        .doesNotContain("secret-token-for-this-test");

    half.put(Finder.API_VARIABLE, "http://example.com:80/editor");
    JarCommand remote = JarCommand.run(half, env.workspace(), temp, "attach");
    assertThat(remote.exitCode()).isEqualTo(2);
    assertThat(remote.stderr())
        .contains("must be a loopback editor API")
        .doesNotContain("secret-token-for-this-test");
    assertThat(remote.stdout()).isEmpty();
  }

  @Test
  void aCompanionNamedByTheEnvironmentIsFollowedOnceItProvesItself() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("companion"));
    try (CompanionProcess companion = CompanionProcess.start(env)) {
      // Another home, whose discovery finds nothing: only the variables lead to the companion.
      CliEnvironment elsewhere = CliEnvironment.in(temp.resolve("elsewhere"));
      try (AttachProcess attach =
          AttachProcess.start(
              elsewhere,
              Map.of(
                  Finder.API_VARIABLE,
                  "http://127.0.0.1:" + companion.port() + "/editor",
                  Finder.TOKEN_VARIABLE,
                  companion.token()))) {
        JsonNode attached = attach.awaitNotification("attached");
        assertThat(attached.path("port").asInt()).isEqualTo(companion.port());
        assertThat(attach.request("state").path("result").path("workspaceRoots").toString())
            .contains(env.workspace().toString());
        assertThat(attach.closeInput()).isZero();
        assertThat(attach.stderr()).doesNotContain(companion.token());
      }
    }
  }

  @Test
  void aCompanionThatHangsIsLeftAfterItsSilenceAndFollowedAgainWhenItWakes() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    try (CompanionProcess companion = CompanionProcess.start(env);
        AttachProcess attach = AttachProcess.start(env)) {
      attach.awaitNotification("attached");
      signal("STOP", companion.pid());
      try {
        JsonNode detached =
            await()
                .atMost(Link.SILENCE_BOUND.plus(WAIT))
                .until(() -> attach.notifications("detached"), d -> !d.isEmpty())
                .get(0);
        assertThat(detached.path("reason").asString())
            .contains("port " + companion.port() + " sent nothing for 15 s");
      } finally {
        signal("CONT", companion.pid());
      }
      await().atMost(WAIT).until(() -> attach.notifications("attached").size() == 2);
      assertThat(attach.request("state").has("result")).isTrue();
    }
  }

  @Test
  void sigtermStopsTheCompanionItStartedAsServeStopsSoAPendingProposalIsRejected()
      throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path file = env.file("notes.txt", "alpha\n");
    try (AttachProcess attach = AttachProcess.start(env, "--start")) {
      int port = attach.awaitNotification("attached").path("port").asInt();
      Path lock = env.qwenHome().resolve("ide").resolve(port + ".lock");
      String token =
          CompanionProcess.JSON.readTree(Files.readString(lock)).path("authToken").asString();
      // The SDK client records every notification: only a companion that stops, not one that dies,
      // sends the rejection.
      try (McpTapClient cli = new McpTapClient(port, token, "proposing-cli")) {
        cli.call("openDiff", Map.of("filePath", file.toString(), "newContent", "beta\n"));
        attach.awaitNotification("diffOpened");

        // Like an editor stopping its job: SIGTERM, and attach's input closes at the same time.
        attach.terminate();

        await().atMost(WAIT).until(() -> cli.received("ide/diffRejected").size() == 1);
        assertThat(lock).doesNotExist();
      }
    }
  }

  private static void signal(String name, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
  }
}
