package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.AskUserQuestion;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli.Kind;
import dev.companion4j.testkit.QwenDaemon;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The review page's chat panel in Debian's Chromium on the ACP path: {@code companion4j serve
 * --agent qwen|gemini} with the real agent on the {@code PATH} as a user installed it, in a home of
 * its own with default settings, against the fake model.
 */
class AcpPanelIT {
  private static final Duration TURN = Duration.ofSeconds(90);

  /** Within the driver's own 60 s bound for one op. */
  private static final Duration PAGE_WAIT = Duration.ofSeconds(55);

  private static final String DAEMON_TOKEN = "daemon-secret-acp-0123456789";

  @TempDir Path dir;
  private ServedAgent agent;
  private QwenDaemon daemon;
  private BrowserDriver browser;
  private CompanionProcess companion;

  @AfterEach
  void stop() throws Exception {
    try (ServedAgent a = agent;
        QwenDaemon d = daemon) {
      if (browser != null) {
        assertThat(browser.log().path("requests").toString())
            .as("the agent's credentials never reach the page")
            .doesNotContain("sk-fake")
            .doesNotContain(a.model.baseUrl());
        browser.close();
      }
    }
  }

  /** {@code serve --agent} with {@code more} arguments, and the page open on it. */
  private void serve(String... more) throws Exception {
    companion = agent.serve(more);
    browser = BrowserDriver.start();
    browser.open(ReviewPage.pageUrl(companion.port(), companion.token()));
    waitLong("#chat[data-state='connected']", null);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anAnswerStreamsAndWritesAreReviewedEditedRejectedOrUnaskedByMode(Kind kind)
      throws Exception {
    agent = new ServedAgent(dir, kind);
    serve();
    assertThat(browser.count("#chat[data-path='acp']")).isOne();
    assertThat(browser.text("#chat-kind")).isEqualToIgnoringCase(kind.name() + " over ACP");
    // Qwen Code's session starts in its own default, `auto`; the chat switches it to `default`.
    waitLong("#chat-mode", "default:");

    // Streamed: the answer shows while the model still holds the rest back.
    prompt("[[count 40 gate 5]]");
    waitLong(".msg.assistant.streaming", "c0004");
    assertThat(browser.text(".msg.assistant")).doesNotContain("c0039");
    agent.model.openGate();
    waitLong(".msg.assistant:not(.streaming)", "c0039");

    // Allowed by the agent's own question, then edited and accepted in the review.
    Path accepted = agent.target("accepted.txt");
    prompt("[[write " + accepted + "]]");
    allowOnce();
    waitLong(item(accepted), null);
    if (kind == Kind.QWEN) {
      Path shots =
          Path.of(
              System.getProperty(
                  "companion4j.screenshots",
                  TestPeers.repoRoot().resolve("cli/target/review-screenshots").toString()));
      browser.screenshot(Files.createDirectories(shots).resolve("chat-acp-review.png"));
    }
    browser.click(".cm-merge-b .cm-content");
    browser.press("Control+End");
    browser.type("// reviewed in the browser\n");
    browser.click("#accept");
    await()
        .atMost(TURN)
        .until(
            () ->
                ServedAgent.contentOf(accepted)
                    .equals(FakeModelServer.FILE_CONTENT + "// reviewed in the browser\n"));
    browser.waitGone(item(accepted));
    waitLong("#chat-cancel", null, "hidden");

    // Rejected in the review: the file is untouched.
    Path rejected = agent.target("rejected.txt");
    String before = ServedAgent.contentOf(rejected);
    prompt("[[write " + rejected + "]]");
    allowOnce();
    waitLong(item(rejected), null);
    browser.click("#reject");
    browser.waitGone(item(rejected));
    waitLong("#chat-cancel", null, "hidden");
    assertThat(ServedAgent.contentOf(rejected)).isEqualTo(before);

    // A mode that allows edits, picked on the page: the next write asks nobody.
    String edits = kind == Kind.QWEN ? "auto-edit" : "autoEdit";
    browser.select("#chat-mode-select", edits);
    browser.waitFor("#chat-mode", edits + ":");
    Path unasked = agent.target("unasked.txt");
    prompt("[[write " + unasked + "]]");
    await()
        .atMost(TURN)
        .until(() -> ServedAgent.contentOf(unasked).equals(FakeModelServer.FILE_CONTENT));
    assertThat(browser.count(".permission")).isZero();
    assertThat(browser.count(item(unasked))).isZero();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void cancelStopsATurnTheModelHoldsOpenAndTheAgentAnswersTheNext(Kind kind) throws Exception {
    agent = new ServedAgent(dir, kind);
    serve();
    // The fake model holds this answer open until the caller goes away.
    prompt("[[hold]]");
    // Cancelled while it streams, as a user sees it: Qwen Code keeps a prompt cancelled before
    // any answer in the history, and sends it again with the next one.
    waitLong(".msg.assistant.streaming", "h2");
    browser.click("#chat-cancel");
    waitLong("#chat-cancel", null, "hidden");
    assertThat(browser.count("#chat[data-state='connected']")).isOne();

    prompt("say hello");
    waitLong(".msg.assistant:not(.streaming)", "Hello from");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theAgentsSlashCommandsAreOfferedAsTheUserTypesASlashAndOneRuns(Kind kind) throws Exception {
    agent = new ServedAgent(dir, kind);
    serve();
    assertThat(browser.count("#chat-path-pick[hidden]"))
        .as("one conversation, no selector")
        .isOne();
    prompt("say hello");
    waitLong(".msg.assistant:not(.streaming)", "Hello from");

    browser.click("#chat-input");
    browser.type("/");
    browser.waitFor("#chat-suggest:not([hidden]) button");
    String first = browser.text("#chat-suggest button").split("[ —]")[0];
    assertThat(first).startsWith("/").hasSizeGreaterThan(1);

    // Typing narrows the offer; Tab completes the first; Enter sends it, and the agent runs it:
    // its version, answered by the agent itself.
    String command = kind == Kind.QWEN ? "/status" : "/about";
    browser.type(command.substring(1, 4));
    browser.waitFor("#chat-suggest:not([hidden]) button", command);
    assertThat(browser.text("#chat-suggest button").split("[ —]")[0]).isEqualTo(command);
    browser.press("Tab");
    waitLong("#chat-suggest", null, "hidden");
    browser.press("Enter");
    browser.waitFor(".msg.user", command);
    waitLong(
        ".msg.assistant:not(.streaming)",
        kind == Kind.QWEN ? "Qwen Code v0.24.4" : "Version: 0.61.0");
  }

  @Test
  void qwenCodesQuestionIsShownAsTextAndAnsweredWithAChoiceAndTheUsersOwnWords() throws Exception {
    agent = new ServedAgent(dir, Kind.QWEN);
    serve();
    prompt(AskUserQuestion.PROMPT);
    waitLong(".question fieldset", "Library");
    assertThat(browser.text(".question")).contains(AskUserQuestion.FIRST).contains("built in");
    assertThat(browser.count(".question b")).as("the model's text is no markup").isZero();

    // Submit with a question unanswered: the page says so and sends nothing.
    browser.click(".question input[value='java.time']");
    browser.click(".question button[data-kind='allow_once']");
    browser.waitFor(".question-missing");
    assertThat(browser.count(".question")).isOne();

    browser.click(".question input[value='lint']");
    browser.click(".question fieldset:nth-of-type(2) .question-own");
    browser.type("my own");
    browser.click(".question button[data-kind='allow_once']");
    waitLong(".msg.assistant:not(.streaming)", "Library: java.time");
    assertThat(browser.text(".msg.assistant")).contains("Checks: lint, my own");
    assertThat(browser.count(".question")).isZero();
  }

  @Test
  void aDaemonConversationAndAnAcpConversationOnOnePage() throws Exception {
    agent = new ServedAgent(dir, Kind.QWEN);
    daemon = QwenDaemon.startIn(agent.workspace(), agent.model, DAEMON_TOKEN);
    Path tokenFile = dir.resolve("daemon-token");
    Files.writeString(tokenFile, DAEMON_TOKEN);
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    serve("--daemon", daemon.url(), "--daemon-token-file", tokenFile.toString());

    // The daemon's comes first; the selector offers both.
    assertThat(browser.count("#chat[data-path='daemon']")).isOne();
    browser.waitFor("#chat-path-pick:not([hidden])");
    assertThat(browser.count("#chat-path option")).isEqualTo(2);
    browser.select("#chat-path", "/chat/acp");
    waitLong("#chat[data-path='acp'][data-state='connected']", null);
    prompt("[[count 3]] for the agent");
    browser.waitFor(".msg.user", "for the agent");
    waitLong(".msg.assistant:not(.streaming)", "c0002");

    browser.select("#chat-path", "/chat");
    browser.waitFor("#chat[data-path='daemon'][data-state='connected']");
    assertThat(browser.count(".msg.user")).as("the daemon's conversation is its own").isZero();
    prompt("[[count 2]] for the daemon");
    browser.waitFor(".msg.user", "for the daemon");
    waitLong(".msg.assistant:not(.streaming)", "c0001");

    browser.select("#chat-path", "/chat/acp");
    browser.waitFor(".msg.user", "for the agent");
    assertThat(browser.text("#chat-log")).doesNotContain("for the daemon");
    assertThat(browser.log().path("requests").toString()).doesNotContain(DAEMON_TOKEN);
  }

  /**
   * The session picker on the ACP path: Qwen Code's earlier session is offered by its first prompt
   * and loads with its history; Gemini CLI lists none, and the page says so when the user opens the
   * picker.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void thePickerListsAnEarlierSessionAndLoadsItsHistory(Kind kind) throws Exception {
    agent = new ServedAgent(dir, kind);
    serve();
    prompt("remember this");
    waitLong(".msg.assistant:not(.streaming)", "Hello from");
    String earlier = sessionId();

    browser.select("#chat-session", "new");
    await().atMost(TURN).until(() -> !sessionId().isEmpty() && !sessionId().equals(earlier));
    waitLong("#chat[data-state='connected']", null);
    browser.waitGone(".msg.user");

    browser.click("#chat-session");
    if (kind == Kind.GEMINI) {
      browser.waitFor("#chat-error:not([hidden])", "does not list its sessions");
      return;
    }
    browser.call(
        "waitFor",
        Map.of(
            "selector",
            "#chat-session option[value='" + earlier + "']",
            "text",
            "remember this",
            "state",
            "attached"));
    browser.select("#chat-session", earlier);

    waitLong(".msg.user", "remember this");
    waitLong(".msg.assistant:not(.streaming)", "Hello from");
    await().atMost(TURN).until(() -> sessionId().equals(earlier));
    // The loaded session goes on: a new prompt is answered in it.
    prompt("and go on");
    await().atMost(TURN).until(() -> browser.count(".msg.assistant:not(.streaming)") == 2);
  }

  private String sessionId() {
    return CompanionProcess.JSON
        .readTree(companion.get("/chat/acp/state").body())
        .path("sessionId")
        .asString("");
  }

  private void prompt(String text) {
    browser.click("#chat-input");
    browser.type(text);
    browser.press("Enter");
    browser.waitFor(".msg.user", text);
  }

  /**
   * Waits a turn's length for {@code selector} (with {@code text}, when given) in {@code state}.
   */
  private void waitLong(String selector, String text, String state) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("selector", selector);
    if (text != null) {
      args.put("text", text);
    }
    args.put("state", state);
    args.put("timeout", PAGE_WAIT.toMillis());
    browser.call("waitFor", args);
  }

  private void waitLong(String selector, String text) {
    waitLong(selector, text, "visible");
  }

  /** Mode {@code default}: the agent asks first; allowing once leads to the write's review. */
  private void allowOnce() {
    waitLong(".permission button[data-kind='allow_once']", null);
    browser.click(".permission button[data-kind='allow_once']");
  }

  private static String item(Path file) {
    return "#diff-list li[data-file=\"" + file + "\"]";
  }
}
