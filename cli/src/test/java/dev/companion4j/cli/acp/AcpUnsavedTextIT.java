package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.engine.EditorEvent;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent of {@code companion4j serve --agent} reads what an editor that follows the companion
 * shows: the unsaved text the editor pushed with its {@code dirty} event, else the disk. The page
 * is Debian's Chromium; the agent is the real {@code qwen --acp} (Gemini CLI's {@code read_file}
 * reads the disk itself, see docs/chat-acp.md).
 */
class AcpUnsavedTextIT {
  private static final Duration TURN = Duration.ofSeconds(90);

  private static final String SAVED = "as saved on disk\n";
  private static final String UNSAVED = "typed in the editor, not saved yet\n";

  @TempDir Path dir;
  private ServedAgent agent;
  private BrowserDriver browser;

  @AfterEach
  void stop() throws Exception {
    try (ServedAgent a = agent) {
      if (browser != null) {
        browser.close();
      }
    }
  }

  @Test
  void aPromptFromThePageMakesTheAgentReadTheUnsavedTextThenTheDiskOnceSaved() throws Exception {
    agent = new ServedAgent(dir, Kind.QWEN);
    CompanionProcess companion = agent.serve();
    browser = BrowserDriver.start();
    browser.open(ReviewPage.pageUrl(companion.port(), companion.token()));
    Path file = Files.writeString(agent.workspace().resolve("notes.txt"), SAVED);

    // As an editor pushes a modified buffer.
    companion.event(
        Map.of("type", "dirty", "path", file.toString(), "dirty", true, "text", UNSAVED));
    prompt("[[call read_file {\"file_path\":\"" + file + "\"}]] first");

    FakeModelServer.Request read = awaitToolResult(0);
    assertThat(read.lastText()).contains(UNSAVED.strip()).doesNotContain(SAVED.strip());
    assertThat(Files.readString(file)).isEqualTo(SAVED);

    // Saved (or reverted) in the editor: the disk is what the file holds again.
    companion.event(Map.of("type", "dirty", "path", file.toString(), "dirty", false));
    // Qwen Code answers a second plain read from its own memory; a range makes it read again.
    prompt("[[call read_file {\"file_path\":\"" + file + "\",\"offset\":0,\"limit\":5}]] again");

    FakeModelServer.Request again = awaitToolResult(1);
    assertThat(again.lastText()).contains(SAVED.strip()).doesNotContain(UNSAVED.strip());
    assertThat(companion.stderr()).as("the user's text is never logged").doesNotContain("typed");
  }

  @Test
  void anUnsavedTextPastItsBoundOrWithASavedFileIsRefusedWithAReason() throws Exception {
    CliEnvironment env = CliEnvironment.in(dir);
    try (CompanionProcess companion = CompanionProcess.start(env)) {
      refusesTheBounds(companion, env.workspace().resolve("notes.txt").toString());
    }
  }

  private static void refusesTheBounds(CompanionProcess companion, String file) {
    String longest = "x".repeat(EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS);

    assertThat(
            companion
                .post(
                    "/editor/events",
                    Map.of("type", "dirty", "path", file, "dirty", true, "text", longest))
                .statusCode())
        .isEqualTo(204);
    HttpResponse<String> tooLong =
        companion.post(
            "/editor/events",
            Map.of("type", "dirty", "path", file, "dirty", true, "text", longest + "y"));
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body())
        .contains("text is longer than " + EditorEvent.DirtyChanged.MAX_UNSAVED_CHARS)
        .hasSizeLessThan(1000);
    HttpResponse<String> saved =
        companion.post(
            "/editor/events",
            Map.of("type", "dirty", "path", file, "dirty", false, "text", "draft"));
    assertThat(saved.statusCode()).isEqualTo(400);
    assertThat(saved.body()).contains("text goes only with dirty: true");
    HttpResponse<String> notAString =
        companion.post(
            "/editor/events", Map.of("type", "dirty", "path", file, "dirty", true, "text", 42));
    assertThat(notAString.statusCode()).isEqualTo(400);
    assertThat(notAString.body()).contains("text must be a string");
  }

  /** The {@code n}th request that carries a tool's result (counting from 0). */
  private FakeModelServer.Request awaitToolResult(int n) {
    return await()
        .atMost(TURN)
        .until(
            () ->
                agent.model.requests().stream()
                    .filter(r -> r.lastRole().equals("tool"))
                    .skip(n)
                    .findFirst()
                    .orElse(null),
            r -> r != null);
  }

  /** Sends {@code text} from the chat panel as the user does, once the agent's turn is over. */
  private void prompt(String text) {
    await()
        .atMost(TURN)
        .until(
            () ->
                browser.count("#chat[data-state='connected']") == 1
                    && browser.count("#chat-cancel[hidden]") == 1);
    browser.click("#chat-input");
    browser.type(text);
    browser.press("Enter");
    browser.waitFor(".msg.user", text);
  }
}
