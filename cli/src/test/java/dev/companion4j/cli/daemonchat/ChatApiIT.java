package dev.companion4j.cli.daemonchat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.daemon.testing.LiveDaemon;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code companion4j serve --daemon} against a real {@code qwen serve} with a token, whose model is
 * a scripted fake: the chat routes the review page uses, and never the daemon's token in what they
 * answer.
 */
class ChatApiIT {
  private static final Duration TURN = Duration.ofSeconds(60);
  private static final String DAEMON_TOKEN = "daemon-secret-0123456789abcdef";

  @RegisterExtension static final LiveDaemon LIVE = new LiveDaemon(DAEMON_TOKEN);

  @TempDir Path temp;
  private CompanionProcess companion;
  private final List<String> answers = new ArrayList<>();

  @BeforeEach
  void startCompanion() throws Exception {
    Path tokenFile = temp.resolve("daemon-token");
    Files.writeString(tokenFile, DAEMON_TOKEN + "\n");
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    companion =
        CompanionProcess.start(
            CliEnvironment.in(temp.resolve("home")),
            "--workspace",
            LIVE.daemon().workspace().toString(),
            "--daemon",
            LIVE.daemon().url(),
            "--daemon-token-file",
            tokenFile.toString());
  }

  @AfterEach
  void stopCompanion() throws Exception {
    if (companion != null) {
      companion.close();
    }
    assertThat(answers)
        .as("no answer of the chat routes holds the daemon's token")
        .noneMatch(a -> a.contains(DAEMON_TOKEN));
  }

  @Test
  void aPromptStreamsIntoTheConversationInASessionThatAsksBeforeEdits() {
    JsonNode ready = awaitState(s -> s.path("conversation").isObject());
    // Where the agent runs, named by host and port: the daemon's address itself stays in the
    // companion.
    assertThat(ready.path("daemon").asString())
        .isEqualTo(LIVE.daemon().url().replaceFirst("^http://", ""));
    assertThat(ready.path("workspace").asString()).isEqualTo(LIVE.daemon().workspace().toString());
    assertThat(ready.path("conversation").path("approvalMode").asString()).isEqualTo("default");

    assertThat(post("/chat/prompt", Map.of("text", "say hello")).statusCode()).isEqualTo(204);

    JsonNode done =
        awaitState(
            s ->
                !s.path("conversation").path("turnRunning").asBoolean()
                    && s.path("conversation")
                        .path("entries")
                        .toString()
                        .contains("Hello from " + QwenDaemon.MODEL));
    assertThat(done.path("conversation").path("entries").get(0).path("type").asString())
        .isEqualTo("user");
  }

  @Test
  void aPermissionIsAnsweredThroughTheCompanionAndAllowWritesTheFile() throws Exception {
    awaitState(s -> s.path("conversation").isObject());
    Path file = LIVE.daemon().workspace().resolve("chat-allowed.txt");

    post("/chat/prompt", Map.of("text", "please [[write " + file + "]]"));
    JsonNode request =
        awaitState(s -> s.path("conversation").path("permissions").size() > 0)
            .path("conversation")
            .path("permissions")
            .get(0);
    assertThat(file).doesNotExist();
    String allow = null;
    for (JsonNode option : request.path("options")) {
      if (option.path("kind").asString().equals("allow_once")) {
        allow = option.path("optionId").asString();
      }
    }

    assertThat(
            post(
                    "/chat/permissions/" + request.path("requestId").asString(),
                    Map.of("optionId", allow))
                .statusCode())
        .isEqualTo(204);
    await().atMost(TURN).until(() -> Files.exists(file));
    assertThat(Files.readString(file)).isEqualTo(FakeModelServer.FILE_CONTENT);
    HttpResponse<String> again =
        post(
            "/chat/permissions/" + request.path("requestId").asString(), Map.of("optionId", allow));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("is no longer pending");
  }

  @Test
  void theEventStreamCarriesEachChangeAndNeverTheDaemonsToken() throws Exception {
    awaitState(s -> s.path("conversation").isObject());
    HttpResponse<java.io.InputStream> stream =
        java.net.http.HttpClient.newHttpClient()
            .send(
                companion
                    .request("/chat/events/stream")
                    .header("Accept", "text/event-stream")
                    .timeout(Duration.ofMinutes(2))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    StringBuilder seen = new StringBuilder();
    Thread reader =
        new Thread(
            () -> {
              try (var in =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(
                          stream.body(), java.nio.charset.StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  synchronized (seen) {
                    seen.append(line).append('\n');
                  }
                }
              } catch (java.io.IOException e) {
                // The stream ends with the test.
              }
            });
    reader.setDaemon(true);
    reader.start();

    post("/chat/prompt", Map.of("text", "say hello"));
    await()
        .atMost(TURN)
        .until(
            () -> {
              synchronized (seen) {
                return seen.toString().contains("Hello from " + QwenDaemon.MODEL)
                    && seen.toString().contains("\"turnRunning\":false");
              }
            });
    synchronized (seen) {
      assertThat(seen.toString()).contains("event: chat").doesNotContain(DAEMON_TOKEN);
    }
    stream.body().close();
  }

  @Test
  void badRequestsGetAPreciseErrorAndTheChatGoesOn() {
    awaitState(s -> s.path("conversation").isObject());

    HttpResponse<String> empty = post("/chat/prompt", Map.of());
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(empty.body()).contains("the body needs \\\"text\\\", a non-empty string");
    HttpResponse<String> notJson = record(companion.post("/chat/prompt", "{"));
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(post("/chat/nothing", Map.of()).statusCode()).isEqualTo(404);
    HttpResponse<String> notStrings = post("/chat/permissions/r1", Map.of("answers", "java.time"));
    assertThat(notStrings.statusCode()).isEqualTo(400);
    assertThat(notStrings.body()).contains("\\\"answers\\\" must be an array of strings");
    HttpResponse<String> noQuestions =
        post("/chat/permissions/r1", Map.of("answers", List.of("java.time")));
    assertThat(noQuestions.statusCode()).isEqualTo(400);
    assertThat(noQuestions.body()).contains("this chat has no questions to answer");

    assertThat(post("/chat/prompt", Map.of("text", "say hello")).statusCode()).isEqualTo(204);
  }

  @Test
  void withoutADaemonTheStateSaysSoAndIntentsAreRefused() throws Exception {
    try (CompanionProcess plain =
        CompanionProcess.start(CliEnvironment.in(temp.resolve("plain")))) {
      HttpResponse<String> state = plain.get("/chat/state");
      assertThat(state.statusCode()).isEqualTo(200);
      assertThat(CompanionProcess.JSON.readTree(state.body()).path("configured").asBoolean(true))
          .isFalse();
      HttpResponse<String> prompt = plain.post("/chat/prompt", "{\"text\":\"hello\"}");
      assertThat(prompt.statusCode()).isEqualTo(409);
      assertThat(prompt.body()).contains("no chat: the companion was started without a daemon");
      assertThat(plain.get("/chat/sessions").statusCode()).isEqualTo(409);
    }
  }

  private JsonNode awaitState(Predicate<JsonNode> done) {
    await().atMost(TURN).until(() -> done.test(state()));
    return state();
  }

  private JsonNode state() {
    return CompanionProcess.JSON.readTree(record(companion.get("/chat/state")).body());
  }

  private HttpResponse<String> post(String path, Map<String, Object> body) {
    return record(companion.post(path, body));
  }

  private HttpResponse<String> record(HttpResponse<String> response) {
    answers.add(response.headers().map() + "\n" + response.body());
    return response;
  }
}
