package dev.companion4j.cli.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import dev.companion4j.testkit.TestPeers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The review page in real headless Chromium, served by {@code companion4j serve} from the shaded
 * jar, with Qwen Code's own IdeClient (the pinned npm package) proposing the edits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReviewPageIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String ORIGINAL =
      "class Greeting {\n  String text() {\n    return \"Hello\";\n  }\n}\n";
  private static final String PROPOSED =
      "class Greeting {\n  String text() {\n    return \"Hello, review\";\n  }\n\n  int size() {\n    return 2;\n  }\n}\n";

  @TempDir static Path temp;
  private CliEnvironment env;
  private CompanionProcess companion;
  private CliDriver cli;
  private BrowserDriver browser;

  @BeforeAll
  void start() {
    env = CliEnvironment.in(temp);
    companion = CompanionProcess.start(env);
    cli = CliDriver.start(Cli.QWEN, env.workspace(), env.variables());
    assertThat(cli.connect().path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    browser = BrowserDriver.start();
  }

  @AfterAll
  void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (cli != null) {
      cli.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  private String pageUrl() {
    return ReviewPage.pageUrl(companion.port(), companion.token());
  }

  private void openLivePage() {
    browser.open(pageUrl());
    browser.waitFor("#status[data-state='live']");
  }

  /** The CLI proposes an edit; the future completes when the user decides. */
  private CompletableFuture<JsonNode> propose(Path file, String newContent) {
    return cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", newContent));
  }

  private static String item(Path file) {
    return "#diff-list li[data-file=\"" + file + "\"]";
  }

  private static String item(String diffId) {
    return "#diff-list li[data-id=\"" + diffId + "\"]";
  }

  /** Proposes through {@code proposer} and returns the new diff's id from the editor API. */
  private String propose(McpTapClient proposer, Path file, String newContent) {
    proposer.call("openDiff", Map.of("filePath", file.toString(), "newContent", newContent));
    for (JsonNode d : JsonMapper.shared().readTree(companion.get("/editor/diffs").body())) {
      if (d.path("filePath").asString().equals(file.toString())
          && d.path("newContent").asString().equals(newContent)) {
        return d.path("id").asString();
      }
    }
    throw new AssertionError("no pending diff for " + file);
  }

  private JsonNode outcome(CompletableFuture<JsonNode> future) {
    JsonNode answer = CliDriver.await(future, WAIT);
    assertThat(answer.path("ok").asBoolean()).as(answer.toString()).isTrue();
    return answer;
  }

  /** Ends a diff as the CLI does when the user answers in the terminal, releasing its openDiff. */
  private void closeQuietly(Path file) {
    cli.call("resolveDiffFromCli", Map.of("filePath", file.toString(), "outcome", "rejected"));
  }

  @Test
  void openDiffFromTheCliAppearsOnTheOpenPageWithoutReload() {
    openLivePage();
    browser.waitFor("#diff-empty");
    int navigations = browser.log().path("navigations").asInt();
    Path file = env.file("src/Appear.java", ORIGINAL);

    propose(file, PROPOSED);
    try {
      browser.waitFor(item(file));
      browser.waitFor(".cm-merge-b .cm-content", "Hello, review");

      assertThat(browser.text("#review-path")).isEqualTo("src/Appear.java");
      assertThat(browser.text(".cm-merge-a .cm-content"))
          .contains("return \"Hello\";")
          .doesNotContain("size()");
      assertThat(browser.text(".cm-merge-b .cm-content")).contains("int size()");
      assertThat(browser.count(".cm-merge-b .cm-changedText"))
          .as("intra-line changes")
          .isPositive();
      JsonNode log = browser.log();
      assertThat(log.path("navigations").asInt()).as("no reload").isEqualTo(navigations);
      assertThat(log.path("consoleErrors")).as("console errors, CSP violations included").isEmpty();
    } finally {
      closeQuietly(file);
    }
  }

  @Test
  void howLongAgoAProposalCameKeepsCounting() {
    openLivePage();
    Path file = env.file("src/Waiting.java", ORIGINAL);
    propose(file, PROPOSED);
    try {
      browser.waitFor(item(file), "seconds ago");
      String listed = browser.text(item(file) + " .meta");
      String shown = browser.text("#review-meta");
      // Well within a minute: the text moves on while the proposal waits, with no event from the
      // companion.
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> !browser.text(item(file) + " .meta").equals(listed));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> !browser.text("#review-meta").equals(shown));
      assertThat(browser.text(item(file) + " .meta")).containsPattern("\\d+ seconds ago");
    } finally {
      closeQuietly(file);
    }
  }

  @Test
  void editingTheProposedSideAndAcceptingGivesTheCliTheEditedText() {
    openLivePage();
    Path file = env.file("src/Edited.java", ORIGINAL);
    CompletableFuture<JsonNode> decision = propose(file, PROPOSED);
    browser.waitFor(item(file));

    browser.click(".cm-merge-b .cm-content");
    browser.press("Control+End");
    browser.type("// reviewed in the browser\n");
    browser.click("#accept");

    JsonNode answer = outcome(decision);
    assertThat(answer.path("status").asString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString())
        .isEqualTo(PROPOSED + "// reviewed in the browser\n");
    browser.waitGone(item(file));
    browser.waitFor("#review-empty");
  }

  @Test
  void rejectGivesTheCliRejected() {
    openLivePage();
    Path file = env.file("src/Rejected.java", ORIGINAL);
    CompletableFuture<JsonNode> decision = propose(file, PROPOSED);
    browser.waitFor(item(file));

    browser.click("#reject");

    assertThat(outcome(decision).path("status").asString()).isEqualTo("rejected");
    browser.waitGone(item(file));
  }

  @Test
  void keyboardShortcutsAcceptAndReject() {
    openLivePage();
    Path first = env.file("src/KeyAccept.java", ORIGINAL);
    CompletableFuture<JsonNode> accepted = propose(first, PROPOSED);
    browser.waitFor(item(first));
    browser.waitFor("#review-path", "src/KeyAccept.java");

    browser.press("Control+Enter");

    JsonNode answer = outcome(accepted);
    assertThat(answer.path("status").asString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString()).isEqualTo(PROPOSED);
    browser.waitGone(item(first));

    Path second = env.file("src/KeyReject.java", ORIGINAL);
    CompletableFuture<JsonNode> rejected = propose(second, PROPOSED);
    browser.waitFor("#review-path", "src/KeyReject.java");
    browser.click(".cm-merge-b .cm-content");

    browser.press("Control+Shift+Backspace");

    assertThat(outcome(rejected).path("status").asString()).isEqualTo("rejected");
    browser.waitGone(item(second));
  }

  @Test
  void closeDiffFromTheCliRemovesItFromThePage() {
    openLivePage();
    Path file = env.file("src/Closed.java", ORIGINAL);
    CompletableFuture<JsonNode> decision = propose(file, PROPOSED);
    browser.waitFor(item(file));

    JsonNode closed = cli.call("closeDiff", Map.of("filePath", file.toString()));

    assertThat(closed.path("content").asString()).isEqualTo(PROPOSED);
    assertThat(outcome(decision).path("status").asString()).isEqualTo("rejected");
    browser.waitGone(item(file));
    browser.waitFor("#review-empty");
    browser.waitFor("#toast", "closed the diff");
  }

  @Test
  void staleAnswersAreRefusedAndChangeNothing() {
    openLivePage();
    Path file = env.file("src/Stale.java", ORIGINAL);
    // The real CLIs propose one diff at a time; the SDK client re-proposes on demand.
    try (McpTapClient proposer =
        new McpTapClient(companion.port(), companion.token(), "re-proposing-cli")) {
      String first = propose(proposer, file, PROPOSED);
      browser.click(item(first) + " button");
      browser.waitFor("#review-main[data-id=\"" + first + "\"]");
      browser.click("#accept");
      browser.waitFor("#toast", "Accepted src/Stale.java");
      await().atMost(WAIT).until(() -> proposer.received("ide/diffAccepted").size() == 1);

      String second = propose(proposer, file, PROPOSED.replace("Hello, review", "Hello, second"));
      browser.waitFor(item(second));
      String third = propose(proposer, file, PROPOSED.replace("Hello, review", "Hello, third"));
      browser.waitFor(item(third));
      browser.waitGone(item(second));
      browser.waitFor("#toast", "Replaced by a newer proposal");
      browser.waitFor(".cm-merge-b .cm-content", "Hello, third");
      assertThat(browser.count(item(file))).as("one card for the file").isEqualTo(1);

      HttpResponse<String> accepted = companion.post("/editor/diffs/" + first + "/accept", "");
      HttpResponse<String> replaced = companion.post("/editor/diffs/" + second + "/accept", "");

      assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(409);
      assertThat(accepted.body()).contains("is no longer pending: it was accepted");
      assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(409);
      assertThat(replaced.body())
          .contains("it was replaced by a newer proposal", "\"outcome\":\"replaced\"");
      assertThat(companion.get("/editor/diffs/" + third).statusCode())
          .as("the newer proposal stays pending")
          .isEqualTo(200);
      assertThat(browser.count(item(third))).isEqualTo(1);
      assertThat(proposer.received("ide/diffAccepted"))
          .as("the stale answers reached no CLI")
          .hasSize(1);
      assertThat(proposer.received("ide/diffRejected")).isEmpty();
      assertThat(env.workspace().resolve("src/Stale.java")).hasContent(ORIGINAL);

      browser.click("#reject");
      await().atMost(WAIT).until(() -> proposer.received("ide/diffRejected").size() == 1);
      browser.waitGone(item(third));
    }
  }

  @Test
  void aProposalWhoseCliLeftSaysNothingWasWritten() {
    openLivePage();
    Path file = env.file("src/Left.java", ORIGINAL);
    try (McpTapClient proposer =
        new McpTapClient(companion.port(), companion.token(), "leaving-cli")) {
      String id = propose(proposer, file, PROPOSED);
      browser.waitFor(item(id));
      String session =
          JsonMapper.shared()
              .readTree(companion.get("/editor/diffs/" + id).body())
              .path("clientId")
              .asString();

      // The CLI ends its session, as it does on exit.
      companion.send(companion.request("/mcp").header("mcp-session-id", session).DELETE());

      browser.waitGone(item(id));
      browser.waitFor("#toast", "The CLI that proposed this edit has left; nothing was written");
      assertThat(browser.text("#toast")).doesNotContain("Accepted");
      HttpResponse<String> late = companion.post("/editor/diffs/" + id + "/accept", "");
      assertThat(late.statusCode()).as(late.body()).isEqualTo(410);
    }
  }

  @Test
  void aPageWithoutTokenShowsAMessageAndReachesNoData() {
    Path file = env.file("src/Secret.java", ORIGINAL);
    propose(file, PROPOSED);
    try {
      browser.open("http://127.0.0.1:" + companion.port() + ReviewPage.PATH);

      browser.waitFor("#gate-title", "needs its access token");
      assertThat(browser.text("#gate-text")).contains("#token=").contains("--open");
      assertThat(browser.count("#diff-list li")).isZero();
      assertThat(editorApiRequests(browser.log())).as("no request for data at all").isEmpty();
    } finally {
      closeQuietly(file);
    }
  }

  @Test
  void aPageWithAWrongTokenShowsAMessageAndReachesNoData() {
    Path file = env.file("src/Secret2.java", ORIGINAL);
    propose(file, PROPOSED);
    try {
      String wrong = "0".repeat(companion.token().length());
      browser.open(ReviewPage.pageUrl(companion.port(), wrong));

      browser.waitFor("#gate-title", "refused");
      assertThat(browser.count("#diff-list li")).isZero();
      assertThat(browser.text("body")).doesNotContain("Secret2");
      JsonNode requests = editorApiRequests(browser.log());
      assertThat(requests).isNotEmpty();
      requests.forEach(r -> assertThat(r.path("status").asInt()).as(r.toString()).isEqualTo(401));
      assertThat(browser.log().path("url").asString())
          .as("token stripped from the address")
          .doesNotContain("token");
    } finally {
      closeQuietly(file);
    }
  }

  @Test
  void theConnectionPanelShowsTheCliAndTheContextItReceives() {
    Path file = env.file("src/Panel.java", ORIGINAL);
    Path other = env.file("README.md", "# readme\n");
    companion.event(Map.of("type", "focus", "path", other.toString()));
    companion.event(Map.of("type", "focus", "path", file.toString()));
    companion.event(Map.of("type", "cursor", "path", file.toString(), "line", 3, "character", 5));
    companion.event(
        Map.of("type", "selection", "path", file.toString(), "text", "return \"Hello\";"));
    cli.awaitContext(c -> c.toString().contains("return \\\"Hello\\\";"), WAIT);

    openLivePage();

    browser.waitFor("#ctx-active", "src/Panel.java");
    assertThat(browser.text("#ctx-cursor")).isEqualTo("line 3, column 5");
    assertThat(browser.text("#ctx-selection")).isEqualTo("return \"Hello\";");
    assertThat(browser.text("#ctx-recent")).contains("README.md");
    assertThat(browser.text("#roots")).isEqualTo(env.workspace().toString());
    assertThat(browser.count("#clients li.client")).isEqualTo(1);

    companion.event(Map.of("type", "cursor", "path", file.toString(), "line", 4, "character", 1));
    browser.waitFor("#ctx-cursor", "line 4, column 1");
  }

  @Test
  void theDiagnosticsPanelShowsWhatTheEditorReportsAsItChanges() {
    Path file = env.file("src/Broken.java", ORIGINAL);
    Path clean = env.file("src/Clean.java", ORIGINAL);
    openLivePage();
    browser.waitFor("#diagnostics", "No editor has reported diagnostics yet.");
    // An editor's first report, for a file without problems, is news too.
    companion.event(
        Map.of("type", "diagnostics", "path", clean.toString(), "diagnostics", List.of()));
    browser.waitFor("#diagnostics", "No problems in the open files.");

    companion.event(
        Map.of(
            "type",
            "diagnostics",
            "path",
            file.toString(),
            "diagnostics",
            List.of(
                Map.of(
                    "range",
                    Map.of("startLine", 3, "startCharacter", 12, "endLine", 3, "endCharacter", 19),
                    "severity",
                    "error",
                    "message",
                    "cannot find symbol",
                    "source",
                    "javac"),
                Map.of(
                    "range",
                    Map.of("startLine", 1, "startCharacter", 1, "endLine", 1, "endCharacter", 2),
                    "severity",
                    "warning",
                    "message",
                    "missing javadoc"))));

    browser.waitFor("#diagnostics .diag.error", "cannot find symbol (javac)");
    assertThat(browser.text("#diagnostics .diag.error .diag-where")).isEqualTo("3:12");
    assertThat(browser.text("#diagnostics .diag-path")).contains("src/Broken.java");
    assertThat(browser.text("#diagnostics-count")).isEqualTo("2");
    assertThat(browser.count("#diagnostics .diag")).isEqualTo(2);

    companion.event(
        Map.of("type", "diagnostics", "path", file.toString(), "diagnostics", List.of()));
    browser.waitFor("#diagnostics", "No problems in the open files.");
    assertThat(browser.text("#diagnostics-count")).isEqualTo("0");

    // The page is no editor: a request to open the file is not counted as heard, but the user sees
    // it.
    assertThat(companion.post("/ide/open", Map.of("path", file.toString(), "line", 3)).statusCode())
        .isEqualTo(503);
    browser.waitFor("#toast", "The CLI points at src/Broken.java, line 3");
  }

  @Test
  void pageShowsDisconnectedAndRetryingWhenTheCompanionGoesAway(@TempDir Path own)
      throws Exception {
    try (CompanionProcess doomed = CompanionProcess.start(CliEnvironment.in(own))) {
      browser.open(ReviewPage.pageUrl(doomed.port(), doomed.token()));
      browser.waitFor("#status[data-state='live']");

      doomed.kill();

      browser.waitFor("#status[data-state='retrying']", "Disconnected, retrying");
      assertThat(browser.count("#gate:not([hidden])"))
          .as("not mistaken for a refused token")
          .isZero();
      // Once reconnecting has failed again, the page says how to reach a restarted companion.
      browser.waitFor("#restart-hint:not([hidden])", "companion4j open");
      assertThat(browser.text("#restart-workspace")).isEqualTo(own.resolve("workspace").toString());
    }
  }

  @Test
  void aNewFileAndAnEmptiedFileAreLabelledAsSuch() {
    // The CLI proposes one edit at a time: each waits for the previous answer.
    openLivePage();
    Path created = env.workspace().resolve("src/Created.java");
    propose(created, PROPOSED);
    try {
      browser.waitFor(item(created) + " .badge.new", "new file");
      browser.waitFor("#review-path .badge.new", "new file");
      assertThat(browser.text("#label-current")).isEqualTo("Current file (does not exist yet)");
    } finally {
      closeQuietly(created);
    }

    Path emptied = env.file("src/Emptied.java", ORIGINAL);
    propose(emptied, "");
    try {
      browser.waitFor(item(emptied) + " .badge.deleted", "deleted");
      assertThat(browser.text("#label-current")).isEqualTo("Current file");
    } finally {
      closeQuietly(emptied);
    }

    Path changed = env.file("src/Changed.java", ORIGINAL);
    propose(changed, PROPOSED);
    try {
      browser.waitFor(item(changed));
      browser.waitFor("#review-path", "src/Changed.java");
      assertThat(browser.count(item(changed) + " .badge"))
          .as("an ordinary edit has no label")
          .isZero();
      assertThat(browser.count("#review-path .badge")).isZero();
    } finally {
      closeQuietly(changed);
    }
  }

  @Test
  void withACliConnectedAndNothingToReviewThePageExplainsTheApprovalMode() {
    openLivePage();
    browser.waitFor("#approval-hint:not([hidden])", "/approval-mode default");
    assertThat(browser.text("#clients li.client strong"))
        .as("the CLI's label, not only its handshake name")
        .matches(".+ \\(.*pid \\d+\\)");

    Path file = env.file("src/Waiting.java", ORIGINAL);
    propose(file, PROPOSED);
    try {
      browser.waitFor(item(file));
      assertThat(browser.count("#approval-hint:not([hidden])"))
          .as("not while a diff is pending")
          .isZero();
    } finally {
      closeQuietly(file);
    }
  }

  @Test
  void screenshotsForTheDocs() {
    Path dir =
        Path.of(
            System.getProperty(
                "companion4j.screenshots",
                TestPeers.repoRoot().resolve("cli/target/review-screenshots").toString()));
    Path file = env.file("src/main/java/demo/Greeting.java", ORIGINAL);
    companion.event(Map.of("type", "focus", "path", file.toString()));
    companion.event(Map.of("type", "cursor", "path", file.toString(), "line", 3, "character", 12));
    companion.event(
        Map.of("type", "selection", "path", file.toString(), "text", "return \"Hello\";"));
    propose(file, PROPOSED);
    try {
      openLivePage();
      browser.waitFor(item(file));
      browser.waitFor("#ctx-selection");
      browser.screenshot(dir.resolve("review-diff.png"));
      browser.screenshot(dir.resolve("review-connection.png"), "#connection-panel");

      browser.open(pageUrl(), 1280, 800, "dark");
      browser.waitFor(item(file));
      browser.waitFor(".cm-merge-b .cm-content", "Hello, review");
      browser.screenshot(dir.resolve("review-dark.png"));

      browser.open(pageUrl(), 420, 860, "light");
      browser.waitFor(item(file));
      browser.waitFor("[data-layout='unified'] .cm-content", "Hello, review");
      assertThat(browser.count("#accept:not([disabled])"))
          .as("accept usable on a narrow window")
          .isEqualTo(1);
      browser.screenshot(dir.resolve("review-narrow.png"));
    } finally {
      closeQuietly(file);
    }
  }

  private static JsonNode editorApiRequests(JsonNode log) {
    var out = JsonMapper.shared().createArrayNode();
    for (JsonNode r : log.path("requests")) {
      if (r.path("url").asString().contains("/editor/")) {
        out.add(r);
      }
    }
    return out;
  }
}
