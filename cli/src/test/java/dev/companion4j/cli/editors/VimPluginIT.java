package dev.companion4j.cli.editors;

import static dev.companion4j.cli.editors.ConnectedClis.active;
import static dev.companion4j.cli.editors.ConnectedClis.cursor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.PortSquatter;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Vim 9 in a terminal with {@code editors/vim} installed as its help file says, typed at as a user
 * types, against {@code companion4j serve} and the real IdeClients of Qwen Code and Gemini CLI. The
 * plugin reaches the companion through the {@code companion4j attach} it starts.
 */
class VimPluginIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Path VIM = Path.of("/usr/bin/vim");

  private static final String GREETER =
      """
      package demo;

      public final class Greeter {
        private final String greeting;

        public Greeter(String greeting) {
          this.greeting = greeting;
        }

        public String greet(String name) {
          return greeting + ", " + name + "!";
        }
      }
      """;

  /** What the CLIs propose: names are trimmed, and a second method greets a list. */
  private static final String PROPOSED =
      """
      package demo;

      import java.util.List;
      import java.util.stream.Collectors;

      public final class Greeter {
        private final String greeting;

        public Greeter(String greeting) {
          this.greeting = greeting;
        }

        public String greet(String name) {
          return greeting + ", " + name.strip() + "!";
        }

        public String greetAll(List<String> names) {
          return names.stream().map(this::greet).collect(Collectors.joining(" "));
        }
      }
      """;

  @TempDir Path temp;
  private CliEnvironment env;
  private Path greeter;
  private ConnectedClis clis;
  private CompanionProcess companion;
  private CliDriver qwen;
  private CliDriver gemini;
  private Tmux vim;

  @BeforeEach
  void start() throws IOException {
    if (!Files.isExecutable(VIM)) {
      throw new IllegalStateException("No " + VIM + "; the test command installs Debian's vim");
    }
    env = CliEnvironment.in(temp.resolve("env"));
    greeter = env.file("src/demo/Greeter.java", GREETER);
    install(env.home());
    clis = ConnectedClis.start(env);
    companion = clis.companion();
    qwen = clis.qwen();
    gemini = clis.gemini();
    vim = Tmux.start(List.of(VIM.toString()), env.workspace(), clis.terminalVariables());
    // The status line counts the CLIs once the plugin follows the companion's events.
    awaitScreen("C4J 2 CLIs");
  }

  /** As the help file says: a link in a package's start folder, and its vimrc lines. */
  static void install(Path home) throws IOException {
    Path start = home.resolve(".vim/pack/companion4j/start");
    Files.createDirectories(start);
    Files.createSymbolicLink(
        start.resolve("companion4j"), TestPeers.repoRoot().resolve("editors/vim"));
    String command =
        CompanionProcess.command().stream()
            .map(w -> "'" + w.replace("'", "''") + "'")
            .collect(Collectors.joining(", "));
    Files.writeString(
        home.resolve(".vimrc"),
        """
        filetype plugin indent on
        syntax on
        colorscheme habamax
        set ttimeout ttimeoutlen=50
        set laststatus=2
        set statusline=%f\\ %m%=%{companion4j#statusline()}\\ %l:%c\\\s
        " companion4j is the jar under test, not a command on this test's PATH.
        let g:companion4j_command = ["""
            + command
            + "]\n");
  }

  @AfterEach
  void stop() throws Exception {
    if (vim != null) {
      vim.close();
    }
    if (clis != null) {
      clis.close();
    }
  }

  @Test
  void theFileTheCursorAndTheSelectionReachBothClis() throws Exception {
    command("edit src/demo/Greeter.java");
    clis.awaitActiveFile(greeter, WAIT);

    vim.type("11G12|");
    for (CliDriver cli : clis.both()) {
      JsonNode moved = cli.awaitContext(c -> cursor(c, 11, 12), WAIT);
      assertThat(active(moved).has("selectedText")).as(cli.cli().name()).isFalse();
    }

    vim.type("ve");
    for (CliDriver cli : clis.both()) {
      JsonNode selected =
          cli.awaitContext(
              c -> "greeting".equals(active(c).path("selectedText").asString(null)), WAIT);
      assertThat(active(selected).path("cursor").path("line").asInt())
          .as(cli.cli().name())
          .isEqualTo(11);
    }

    vim.press("Escape");
    vim.type("gg");
    for (CliDriver cli : clis.both()) {
      JsonNode cleared = cli.awaitContext(c -> cursor(c, 1, 1), WAIT);
      assertThat(active(cleared).has("selectedText")).as(cli.cli().name()).isFalse();
    }
  }

  @Test
  void typingMakesTheFileUnsavedForTheIdeToolsAndWritingItSavesIt() throws Exception {
    command("edit src/demo/Greeter.java");
    clis.awaitActiveFile(greeter, WAIT);

    vim.type("x");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":true"));
    command("w");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":false"));
  }

  @Test
  void proposalsAreReviewedInADiffTabAndAnsweredByWritingOrClosingThem() throws Exception {
    command("edit src/demo/Greeter.java");
    qwen.awaitContext(c -> active(c).path("path").asString("").equals(greeter.toString()), WAIT);

    // Qwen Code proposes; the proposal opens in a new tab, beside the file, as a diff.
    CompletableFuture<JsonNode> accepted =
        qwen.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    String review =
        awaitScreen("proposes an edit to src/demo/Greeter.java: :w accepts, :q rejects");
    assertThat(review).contains("C4J 2 CLIs · 1 to review", "name.strip()");
    ConnectedClis.screenshot(vim, "vim-review");
    clis.assertAttachFollowsTheCompanionWithTheTokenInNoArguments();
    String id =
        CompanionProcess.JSON
            .readTree(companion.get("/editor/diffs").body())
            .get(0)
            .path("id")
            .asString();
    query(
        "'tabs:' . tabpagenr('$') . ',diff:' . &diff . ',buftype:' . &buftype . ',name:' . bufname('%')");
    awaitScreen("tabs:2,diff:1,buftype:acwrite,name:companion://" + id + "/src/demo/Greeter.java");
    query("'open:' . join(map(companion4j#proposals(), 'fnamemodify(v:val.filePath, '':.'')'))");
    awaitScreen("open:src/demo/Greeter.java");

    // The user edits the proposal, and :w accepts it with the edit; the CLI writes the file.
    vim.type("14GA // names may come padded");
    vim.press("Escape");
    command("w");
    JsonNode answer = CliDriver.await(accepted, WAIT);
    assertThat(answer.path("status").asString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString())
        .isEqualTo(
            PROPOSED.replace(
                "name.strip() + \"!\";", "name.strip() + \"!\"; // names may come padded"));
    awaitScreen("accepted: ");
    query("'tabs:' . tabpagenr('$') . ',left:' . len(companion4j#proposals())");
    awaitScreen("tabs:1,left:0");
    assertThat(greeter).as("the plugin never writes the file; the CLI does").hasContent(GREETER);

    // Gemini CLI proposes; :q in the proposal rejects it.
    CompletableFuture<JsonNode> rejected =
        gemini.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    awaitScreen("C4J 2 CLIs · 1 to review");
    query("'buffer:' . &buftype . ',' . len(companion4j#proposals())");
    awaitScreen("buffer:acwrite,1");
    command("q");
    assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");
    awaitScreen("rejected the edit to src/demo/Greeter.java");

    // Qwen Code proposes and withdraws it: the tab closes without an answer from Vim.
    CompletableFuture<JsonNode> withdrawn =
        qwen.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              query("'proposed:' . len(companion4j#proposals()) . ',tabs:' . tabpagenr('$')");
              assertThat(vim.screen()).contains("proposed:1,tabs:2");
            });
    qwen.call("closeDiff", Map.of("filePath", greeter.toString()));
    awaitScreen("the proposal for src/demo/Greeter.java was closed: withdrawn by the CLI");
    query("'proposed:' . len(companion4j#proposals()) . ',tabs:' . tabpagenr('$')");
    awaitScreen("proposed:0,tabs:1");
    CliDriver.await(withdrawn, WAIT);

    assertThat(awaitScreen("C4J 2 CLIs ")).doesNotContain("to review");
    assertThat(greeter).hasContent(GREETER);
  }

  @Test
  void theModelOpensAFileAtALine() throws Exception {
    Path notes = env.file("docs/notes.txt", "alpha\nbeta\ngamma delta\nepsilon\n");
    command("edit src/demo/Greeter.java");
    qwen.awaitContext(c -> active(c).path("path").asString("").equals(greeter.toString()), WAIT);

    assertThat(
            companion
                .post("/ide/open", Map.of("path", notes.toString(), "line", 3, "character", 2))
                .statusCode())
        .isEqualTo(200);

    // Vim follows, and tells the CLIs where it went.
    qwen.awaitContext(
        c -> active(c).path("path").asString("").equals(notes.toString()) && cursor(c, 3, 2), WAIT);
    query("'at:' . expand('%:.') . ':' . line('.') . ':' . col('.')");
    awaitScreen("at:docs/notes.txt:3:2");
  }

  @Test
  void aQuestionAboutCodeIsRefusedAtOnceInVimsWords() throws Exception {
    long asked = System.nanoTime();
    HttpResponse<String> answer =
        companion.post(
            "/ide/code/definition", Map.of("path", greeter.toString(), "line", 11, "column", 17));

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(422);
    assertThat(CompanionProcess.JSON.readTree(answer.body()).path("error").asString())
        .startsWith(
            "The editor cannot answer: Vim has no language-server client the companion can ask");
    assertThat(Duration.ofNanos(System.nanoTime() - asked))
        .as("answered, not left to the companion's bound")
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void runStartsACommandInATerminalWithTheCompanionsVariables() throws Exception {
    command("Companion4jRun env");

    String screen = awaitScreen("QWEN_CODE_IDE_SERVER_PORT=" + companion.port());
    assertThat(screen).contains("GEMINI_CLI_IDE_SERVER_PORT=" + companion.port(), "env [finished]");
  }

  @Test
  void aServerOnADeadCompanionsPortIsSentNoTokenAndNoCompanionIsSaidToServe() throws Exception {
    CliEnvironment squatted = CliEnvironment.in(temp.resolve("squatted"));
    squatted.file("README.md", "# readme\n");
    install(squatted.home());
    try (PortSquatter squatter = PortSquatter.plantedIn(squatted);
        Tmux other =
            Tmux.start(
                List.of(VIM.toString(), "README.md"),
                squatted.workspace(),
                ConnectedClis.terminalVariables(squatted))) {
      await().atMost(WAIT).until(() -> !squatter.requests().isEmpty());
      other.type("ohello");
      other.press("Escape");
      other.type(":Companion4jRun env");
      other.press("Enter");
      String none = "no companion serves " + squatted.workspace();
      await()
          .atMost(WAIT)
          .until(() -> other.screen().contains(none) || other.screen().contains("NODE_OPTIONS="));

      assertThat(squatter.requests())
          .as("what the squatter received")
          .noneMatch(PortSquatter.Request::carriesTheToken);
      assertThat(squatter.wasChallenged()).isTrue();
      assertThat(other.screen())
          .doesNotContain("NODE_OPTIONS=")
          .contains(":Companion4jStart starts one", "C4J off");
      other.type(":Companion4jStatus");
      other.press("Enter");
      await().atMost(WAIT).until(() -> other.screen().contains("companion4j: " + none));
      other.type(":echo 'open:' . len(companion4j#proposals()) . ':' . expand('%')");
      other.press("Enter");
      await().atMost(WAIT).until(() -> other.screen().contains("open:0:README.md"));
      assertThat(squatter.requests()).noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void anEditorWhoseCompanionWasKilledNeverFollowsTheNextOwnerOfItsPort() throws Exception {
    CliEnvironment killed = CliEnvironment.in(temp.resolve("killed"));
    killed.file("README.md", "# readme\n");
    install(killed.home());
    CompanionProcess crashed = CompanionProcess.start(killed);
    try (Tmux other =
        Tmux.start(
            List.of(VIM.toString(), "README.md"),
            killed.workspace(),
            ConnectedClis.terminalVariables(killed))) {
      await().atMost(WAIT).until(() -> other.screen().contains("C4J 0 CLIs"));
      crashed.kill();
      // Another user binds the freed port; attach's next look re-reads the lock the crash left.
      try (PortSquatter squatter = PortSquatter.listeningOn(killed, crashed.port())) {
        await().atMost(WAIT).until(() -> other.screen().contains("C4J gone"));
        assertThat(other.screen()).contains("the companion on port " + crashed.port());
        // The status says what attach found when it looked again, with the squatter listening.
        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  other.type(":Companion4jStatus");
                  other.press("Enter");
                  assertThat(other.screen())
                      .contains("companion4j: no companion serves " + killed.workspace());
                });
        other.type("ohello");
        other.press("Escape");
        assertThat(squatter.companionRequests())
            .as(
                "the lock's process is gone: its port is not even asked; all requests: %s",
                squatter.requests())
            .isEmpty();
      }
    } finally {
      crashed.close();
    }
  }

  @Test
  void aDiffIdOrPathFromTheCompanionThatCouldEndACommandOrNameABufferIsRefused() throws Exception {
    Path pwned = temp.resolve("pwned");
    // What attach's diffOpened could carry: an id with lines of its own, and a path that would end
    // an Ex command.
    dispatch(
        "diffOpened",
        "{\"id\":\"0123456789abcdef\\n!touch "
            + pwned
            + "\",\"filePath\":\""
            + greeter
            + "\",\"newContent\":\"x\",\"change\":\"modified\"}");
    awaitScreen("refused a proposal whose id is not sixteen hex digits");
    command("Companion4jReject");
    awaitScreen("no proposal here");
    dispatch(
        "diffOpened",
        "{\"id\":\"0123456789abcdef\",\"filePath\":\""
            + greeter
            + "\\n!touch "
            + pwned
            + "\",\"newContent\":\"x\",\"change\":\"modified\"}");
    awaitScreen("refused a proposal whose file is not an absolute path without control characters");
    query("'proposed:' . len(companion4j#proposals()) . ',tabs:' . tabpagenr('$')");
    awaitScreen("proposed:0,tabs:1");
    assertThat(pwned).doesNotExist();
  }

  @Test
  void onlyTheIdesVariablesOfTheirFormReachATerminal() throws Exception {
    // Dictionaries print in no fixed order: the kept variables as sorted pairs.
    query(
        "'kept:' . string(map("
            + script("TerminalVariables")
            + "({'NODE_OPTIONS': '--require /tmp/evil.js',"
            + " 'QWEN_CODE_IDE_SERVER_PORT': '41233', 'GEMINI_CLI_IDE_SERVER_PORT': \"4\\n1\", 'REMOTE_CONTAINERS': 'true'}),"
            + " {_, v -> type(v) == v:t_dict ? sort(items(v)) : v}))");
    awaitScreen(
        "kept:[[['QWEN_CODE_IDE_SERVER_PORT', '41233'], ['REMOTE_CONTAINERS', 'true']], ['GEMINI_CLI_IDE_SERVER_PORT', 'NODE_OPTIONS']]");
  }

  /** Hands the plugin one notification as attach writes it. */
  private void dispatch(String method, String params) throws IOException {
    String line = "{\"method\":\"" + method + "\",\"params\":" + params + "}";
    command("call companion4j#attach#receive('" + line.replace("'", "''") + "')");
  }

  /** An expression naming the plugin's script-local function {@code name}. */
  private static String script(String name) {
    return "function('<SNR>' . getscriptinfo({'name': 'autoload/companion4j.vim'})[0].sid . '_"
        + name
        + "')";
  }

  private void command(String command) throws IOException {
    vim.type(":" + command);
    vim.press("Enter");
  }

  /** Echoes {@code expression}; its value shows on the command line. */
  private void query(String expression) throws IOException {
    command("echo " + expression);
  }

  private String awaitScreen(String text) {
    return await().atMost(WAIT).until(vim::screen, s -> s.contains(text));
  }
}
