package dev.companion4j.cli.editors;

import static dev.companion4j.cli.editors.ConnectedClis.active;
import static dev.companion4j.cli.editors.ConnectedClis.cursor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.EventTap;
import dev.companion4j.cli.testing.PortSquatter;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.McpTapClient;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Debian's Neovim in a terminal, with {@code editors/neovim} installed as its README says (a
 * package on the packpath, {@code setup{}} in init.lua, the statusline component placed, the {@code
 * companion4j} launcher on the PATH), against {@code companion4j serve} and the real Qwen Code and
 * Gemini CLI IdeClients; the plugin reaches the companion through {@code companion4j attach}. Keys
 * are typed through Neovim's RPC socket, as a user types them; what the user would see is read from
 * the screen.
 */
class NeovimPluginIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Path NVIM = Path.of("/usr/bin/nvim");

  /** How long a real CLI's TUI may take to start and connect. */
  private static final Duration CLI_START = Duration.ofSeconds(90);

  @TempDir Path temp;
  private CliEnvironment env;
  private ConnectedClis clis;
  private CompanionProcess companion;
  private CliDriver qwen;
  private CliDriver gemini;
  private Tmux terminal;
  private Path socket;

  @BeforeEach
  void start() throws IOException {
    if (!Files.isExecutable(NVIM)) {
      throw new IllegalStateException("No " + NVIM + "; the test command installs Debian's neovim");
    }
    env = CliEnvironment.in(temp.resolve("env"));
    install(env.home());
    clis = ConnectedClis.start(env);
    companion = clis.companion();
    qwen = clis.qwen();
    gemini = clis.gemini();
  }

  @AfterEach
  void stop() throws Exception {
    if (terminal != null) {
      terminal.close();
    }
    if (clis != null) {
      clis.close();
    }
  }

  @Test
  void theFileCursorSelectionUnsavedStateAndDiagnosticsReachBothClis() throws Exception {
    Path notes = env.file("docs/notes.txt", "alpha\nbeta\ngamma delta\nepsilon\n");
    startNeovim("docs/notes.txt");
    clis.awaitActiveFile(notes, WAIT);

    keys("3G7|");
    for (CliDriver cli : clis.both()) {
      JsonNode moved = cli.awaitContext(c -> cursor(c, 3, 7), WAIT);
      assertThat(active(moved).has("selectedText")).isFalse();
    }

    keys("vE");
    for (CliDriver cli : clis.both()) {
      cli.awaitContext(c -> "delta".equals(active(c).path("selectedText").asString(null)), WAIT);
    }
    keys("<Esc>gg0");
    qwen.awaitContext(c -> cursor(c, 1, 1) && !active(c).has("selectedText"), WAIT);

    keys("x");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":true"));
    keys(":w<CR>");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":false"));

    // A language server reports through vim.diagnostic; this stands in for one.
    lua(
        "vim.diagnostic.set(vim.api.nvim_create_namespace('test-lsp'), 0,"
            + " {{lnum = 1, col = 0, end_col = 4, severity = vim.diagnostic.severity.WARN, message = 'beta is unused', source = 'lint'}})");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonNode state =
                  CompanionProcess.JSON.readTree(companion.get("/editor/state").body());
              assertThat(state.path("diagnostics").toString())
                  .contains("beta is unused", "\"severity\":\"warning\"");
            });
  }

  @Test
  void aNeovimWithoutProblemsSaysOnConnectingThatItReportsDiagnostics() throws Exception {
    Path notes = env.file("notes.txt", "alpha\n");
    try (EventTap page = EventTap.asReviewPage(companion)) {
      startNeovim("notes.txt");
      // No language server has said anything: the list is empty, and that is a report too.
      page.await(
          "diagnostics",
          d -> d.path("path").asString().equals(notes.toString()) && d.path("total").asInt() == 0);
    }
    JsonNode state = CompanionProcess.JSON.readTree(companion.get("/editor/state").body());
    assertThat(state.path("features").toString()).contains("\"diagnostics\"");
  }

  @Test
  void aProposalOpensAsADiffWhereAWriteAcceptsAndClosingRejects() throws Exception {
    Path main = env.file("src/Main.java", MAIN);
    startNeovim("src/Main.java");
    awaitScreen("C4J 2 CLIs");

    CompletableFuture<JsonNode> accepted =
        qwen.send("openDiff", Map.of("filePath", main.toString(), "newContent", MAIN_PROPOSED));
    awaitScreen("proposes an edit to src/Main.java: :w accepts, :q rejects");
    assertThat(lua("return #vim.api.nvim_list_tabpages()")).isEqualTo("2");
    assertThat(lua("return vim.api.nvim_buf_get_name(0)"))
        .matches("companion://[0-9a-f]{16}/src/Main.java");
    assertThat(lua("return vim.wo.diff and 'diff' or 'plain'")).isEqualTo("diff");
    awaitScreen("C4J 2 CLIs · 1 to review");
    ConnectedClis.screenshot(terminal, "neovim-review");
    clis.assertAttachFollowsTheCompanionWithTheTokenInNoArguments();

    keys("Gofinal int unused = 0;<Esc>:w<CR>");
    JsonNode answer = CliDriver.await(accepted, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString())
        .isEqualTo(MAIN_PROPOSED + "final int unused = 0;\n");
    assertThat(main).as("the CLI writes the file, not the editor").hasContent(MAIN);
    await().atMost(WAIT).until(() -> lua("return #vim.api.nvim_list_tabpages()").equals("1"));
    // The CLI writes what it was given; the file's buffer follows.
    Files.writeString(main, answer.path("content").asString());
    await()
        .atMost(WAIT)
        .until(
            () ->
                lua("return vim.api.nvim_buf_get_lines(0, -2, -1, false)[1]")
                    .equals("final int unused = 0;"));

    CompletableFuture<JsonNode> rejected =
        gemini.send(
            "openDiff", Map.of("filePath", main.toString(), "newContent", "class Main {}\n"));
    await().atMost(WAIT).until(() -> lua("return #require('companion4j').proposals()").equals("1"));
    keys(":q<CR>");
    assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");
    await().atMost(WAIT).until(() -> lua("return #vim.api.nvim_list_tabpages()").equals("1"));

    Path created = env.workspace().resolve("src/Created.java");
    qwen.send(
        "openDiff", Map.of("filePath", created.toString(), "newContent", "class Created {}\n"));
    awaitScreen("proposes a new file src/Created.java");
    qwen.call("closeDiff", Map.of("filePath", created.toString(), "suppressNotification", true));
    awaitScreen("the edit to src/Created.java was withdrawn by the CLI");
    assertThat(lua("return #vim.api.nvim_list_tabpages()")).isEqualTo("1");
    assertThat(lua("return #require('companion4j').proposals()")).isEqualTo("0");
    assertThat(created).doesNotExist();
  }

  @Test
  void aReplacedProposalClosesAndItsSuccessorOpensAndAnswersNameTheirId() throws Exception {
    Path notes = env.file("notes.txt", "alpha\nbeta\n");
    startNeovim("notes.txt");
    // The SDK client stands in for a CLI: unlike the real ones, it re-proposes while one is open.
    try (McpTapClient proposer =
        new McpTapClient(companion.port(), companion.token(), "proposing-cli")) {
      proposer.call(
          "openDiff", Map.of("filePath", notes.toString(), "newContent", "alpha\nsecond\n"));
      await()
          .atMost(WAIT)
          .until(() -> lua("return #require('companion4j').proposals()").equals("1"));
      String first = lua("return require('companion4j').proposals()[1].id");
      proposer.call(
          "openDiff", Map.of("filePath", notes.toString(), "newContent", "alpha\nthird\n"));
      await()
          .atMost(WAIT)
          .until(
              () -> {
                String ids =
                    lua(
                        "return table.concat(vim.tbl_map(function(p) return p.id end, require('companion4j').proposals()), ',')");
                return !ids.isEmpty() && !ids.contains(first);
              });
      assertThat(lua("return #vim.api.nvim_list_tabpages()")).isEqualTo("2");
      assertThat(lua("return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '|')"))
          .isEqualTo("alpha|third");

      keys(":Companion4jAccept<CR>");
      await().atMost(WAIT).until(() -> proposer.received("ide/diffAccepted").size() == 1);
      assertThat(proposer.received("ide/diffAccepted").get(0).params())
          .containsEntry("content", "alpha\nthird\n");
      assertThat(proposer.received("ide/diffRejected"))
          .as("the replaced one was never answered")
          .isEmpty();
    }
  }

  @Test
  void theCompanionOpensAFileAtALine() throws Exception {
    Path target = env.file("src/Target.java", "class Target {\n\n  void run() {\n  }\n}\n");
    env.file("README.md", "# readme\n");
    startNeovim("README.md");
    awaitScreen("C4J 2 CLIs");

    assertThat(
            companion
                .post("/ide/open", Map.of("path", target.toString(), "line", 3, "character", 3))
                .statusCode())
        .isEqualTo(200);
    await()
        .atMost(WAIT)
        .until(() -> lua("return vim.api.nvim_buf_get_name(0)").equals(target.toString()));
    assertThat(lua("local p = vim.api.nvim_win_get_cursor(0) return p[1] .. ':' .. (p[2] + 1)"))
        .isEqualTo("3:3");
  }

  @Test
  void runStartsACliInATerminalWithTheVariablesThatConnectItHere() throws Exception {
    Path cli =
        env.file(
            "fake-cli.sh",
            "#!/bin/sh\necho \"port=$QWEN_CODE_IDE_SERVER_PORT gemini=$GEMINI_CLI_IDE_SERVER_PORT\"\nexec sleep 60\n");
    cli.toFile().setExecutable(true);
    env.file("README.md", "# readme\n");
    startNeovim("README.md");
    awaitScreen("C4J 2 CLIs");

    keys(":Companion4jRun ./fake-cli.sh<CR>");
    awaitScreen("port=" + companion.port() + " gemini=" + companion.port());
    assertThat(lua("return vim.bo.buftype")).isEqualTo("terminal");
  }

  @Test
  void aCliStartedWithRunEndsWhenNeovimQuits() throws Exception {
    CliEnvironment quitting = CliEnvironment.in(temp.resolve("quitting"));
    quitting.file("README.md", "# readme\n");
    install(quitting.home());
    // Gemini CLI's account: an API key, as a user who set one up has (no model is asked here).
    Files.createDirectories(quitting.home().resolve(".gemini"));
    Files.writeString(
        quitting.home().resolve(".gemini/settings.json"),
        "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");
    Path bin = Files.createDirectories(temp.resolve("bin"));
    HeadlessCli.Kind.GEMINI.installAsCommand(bin);
    Map<String, String> variables = ConnectedClis.terminalVariables(quitting);
    variables.put("PATH", bin + ":" + variables.get("PATH"));
    variables.put("GEMINI_API_KEY", "fake");
    List<ProcessHandle> started = new ArrayList<>();
    try (CompanionProcess own = CompanionProcess.start(quitting)) {
      startNeovim(quitting, "README.md", variables);
      awaitScreen("C4J 0 CLIs");
      keys(":Companion4jRun gemini<CR>");
      // Gemini CLI runs as a launcher and the CLI it relaunches (again after a trust change).
      await().atMost(WAIT).until(() -> !lua("return vim.b.terminal_job_id or 0").equals("0"));
      ProcessHandle launcher =
          ProcessHandle.of(Long.parseLong(lua("return vim.fn.jobpid(vim.b.terminal_job_id)")))
              .orElseThrow();
      started.add(launcher);
      CliTerminal.awaitScreen(
          terminal, "Do you want to connect Companion4J to Gemini CLI?", CLI_START);
      CliTerminal.trustTheFolderAndEnableIde(terminal, CLI_START);
      CliTerminal.awaitScreen(terminal, "C4J 1 CLI", CLI_START);
      long pid =
          CompanionProcess.JSON
              .readTree(own.get("/editor/state").body())
              .path("clients")
              .path(0)
              .path("pid")
              .asLong();
      ProcessHandle relaunched = ProcessHandle.of(pid).orElseThrow();
      assertThat(relaunched.parent()).contains(launcher);

      keys("<C-\\><C-n>:qa!<CR>");
      await().atMost(WAIT).until(() -> terminal.exitStatus() != null);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(List.of(launcher, relaunched)).noneMatch(ProcessHandle::isAlive));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  CompanionProcess.JSON
                      .readTree(own.get("/editor/state").body())
                      .path("clients")
                      .isEmpty());
    } finally {
      for (ProcessHandle launcher : started) {
        launcher.descendants().forEach(ProcessHandle::destroyForcibly);
        launcher.destroyForcibly();
      }
    }
  }

  @Test
  void checkhealthSaysHowToPutTheLauncherOnThePath() throws Exception {
    CliEnvironment bare = CliEnvironment.in(temp.resolve("bare"));
    install(bare.home());
    Path report = temp.resolve("health.txt");
    ProcessBuilder pb =
        new ProcessBuilder(
                NVIM.toString(),
                "--headless",
                "-c",
                "checkhealth companion4j",
                "-c",
                "write! " + report,
                "-c",
                "qa!")
            .directory(bare.workspace().toFile())
            .redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(ConnectedClis.terminalVariables(bare));
    Process nvim = pb.start();
    String out = new String(nvim.getInputStream().readAllBytes());
    assertThat(nvim.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();

    assertThat(Files.readString(report))
        .contains("`companion4j` is not on PATH")
        .contains("install.sh", "~/.local/bin")
        .contains("command = '/path/to/companion4j'");
  }

  @Test
  void autostartStartsACompanionWhenNoneServesTheDirectoryThatEndsWithNeovim() throws Exception {
    CliEnvironment alone = CliEnvironment.in(temp.resolve("alone"));
    alone.file("README.md", "# readme\n");
    install(alone.home(), "{ autostart = true }");
    Path locks = alone.qwenHome().resolve("ide");
    try {
      startNeovim(alone, "README.md");
      awaitScreen("C4J 0 CLIs");
      assertThat(locks(locks)).isNotEmpty();

      keys(":qa!<CR>");
      await().atMost(WAIT).until(() -> terminal.exitStatus() != null);
      await().atMost(WAIT).until(() -> locks(locks).isEmpty());
    } finally {
      stopCompanionsOf(locks);
    }
  }

  @Test
  void aServerOnADeadCompanionsPortIsSentNoTokenAndTheCompanionIsSaidGone() throws Exception {
    CliEnvironment squatted = CliEnvironment.in(temp.resolve("squatted"));
    squatted.file("README.md", "# readme\n");
    Path cli =
        squatted.file("fake-cli.sh", "#!/bin/sh\necho \"node=[$NODE_OPTIONS]\"\nexec sleep 60\n");
    cli.toFile().setExecutable(true);
    install(squatted.home());
    try (PortSquatter squatter = PortSquatter.plantedIn(squatted)) {
      startNeovim(squatted, "README.md");
      await().atMost(WAIT).until(() -> !squatter.requests().isEmpty());
      keys("ohello<Esc>");
      keys(":Companion4jRun ./fake-cli.sh<CR>");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  terminal.screen().contains("start one with :Companion4jStart")
                      || terminal.screen().contains("node=["));

      assertThat(squatter.requests())
          .as("what the squatter received")
          .noneMatch(PortSquatter.Request::carriesTheToken);
      assertThat(squatter.wasChallenged()).isTrue();
      assertThat(terminal.screen()).doesNotContain("node=[").contains("C4J off");
      assertThat(lua("return require('companion4j').status()"))
          .startsWith("no companion serves " + squatted.workspace());
      assertThat(lua("return #require('companion4j').proposals()")).isEqualTo("0");
      assertThat(lua("return vim.api.nvim_buf_get_name(0)"))
          .isEqualTo(squatted.workspace().resolve("README.md").toString());
      assertThat(squatter.requests()).noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void anEditorWhoseCompanionWasKilledNeverFollowsTheNextOwnerOfItsPort() throws Exception {
    CliEnvironment killed = CliEnvironment.in(temp.resolve("killed"));
    killed.file("README.md", "# readme\n");
    install(killed.home());
    CompanionProcess crashed = CompanionProcess.start(killed);
    try {
      startNeovim(killed, "README.md");
      awaitScreen("C4J 0 CLIs");
      crashed.kill();
      // Another user binds the freed port; attach, looking again every 2 s, re-reads the lock the
      // crash left.
      try (PortSquatter squatter = PortSquatter.listeningOn(killed, crashed.port())) {
        awaitScreen("C4J gone");
        keys("ohello<Esc>");
        await()
            .during(Duration.ofSeconds(5))
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  assertThat(squatter.companionRequests())
                      .as(
                          "the lock's process is gone: its port is not even asked; all requests: %s",
                          squatter.requests())
                      .isEmpty();
                  assertThat(terminal.screen()).contains("C4J gone");
                });
        assertThat(lua("return require('companion4j').status()"))
            .startsWith("no companion serves " + killed.workspace());
      }
    } finally {
      crashed.close();
    }
  }

  @Test
  void aCompanionNamedByTheEnvironmentProvesItselfToo() throws Exception {
    CliEnvironment named = CliEnvironment.in(temp.resolve("named"));
    install(named.home());
    try (PortSquatter squatter = PortSquatter.listeningOn(named, 0)) {
      Map<String, String> variables =
          withTheLauncher(named, ConnectedClis.terminalVariables(named));
      variables.put("COMPANION4J_EDITOR_API", "http://127.0.0.1:" + squatter.port() + "/editor");
      variables.put("COMPANION4J_TOKEN", PortSquatter.TOKEN);
      ProcessBuilder pb =
          new ProcessBuilder(
                  NVIM.toString(),
                  "--headless",
                  "-c",
                  "lua io.stdout:write(require('companion4j').status())",
                  "-c",
                  "qa!")
              .directory(named.workspace().toFile())
              .redirectErrorStream(true);
      pb.environment().clear();
      pb.environment().putAll(variables);
      Process nvim = pb.start();
      String out = new String(nvim.getInputStream().readAllBytes());
      assertThat(nvim.waitFor(30, TimeUnit.SECONDS)).isTrue();

      assertThat(out).contains("no companion serves " + named.workspace());
      assertThat(squatter.requests()).isNotEmpty().noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void onlyTheIdesVariablesOfTheirFormReachATerminalAndMalformedIdsAndPathsAreRefused()
      throws Exception {
    env.file("README.md", "# readme\n");
    startNeovim("README.md");
    awaitScreen("C4J 2 CLIs");
    String filter =
        "return vim.inspect({require('companion4j.terminal').variables("
            + "{NODE_OPTIONS = '--require /tmp/evil.js', LD_PRELOAD = '/tmp/evil.so', QWEN_CODE_IDE_SERVER_PORT = '41233',"
            + " GEMINI_CLI_IDE_SERVER_PORT = '41233\\nX=1', GEMINI_CLI_IDE_WORKSPACE_PATH = '/w'})}, {newline = ' ', indent = ''})";
    assertThat(lua(filter))
        .isEqualTo(
            "{ { GEMINI_CLI_IDE_WORKSPACE_PATH = \"/w\", QWEN_CODE_IDE_SERVER_PORT = \"41233\" },"
                + " { \"GEMINI_CLI_IDE_SERVER_PORT\", \"LD_PRELOAD\", \"NODE_OPTIONS\" } }");

    Path pwned = temp.resolve("pwned");
    Path notes = env.file("notes.txt", "alpha\n");
    // What a diffOpened would carry, handled on the main loop as attach's notifications are: an
    // id that would add lines to a request, a path that would end an Ex command.
    lua(
        "vim.schedule(function() require('companion4j.review').show({id = '0123456789abcdef\\noutput = "
            + pwned
            + "\\nurl = http://127.0.0.1:1/',"
            + " filePath = '"
            + notes
            + "', newContent = 'beta\\n', change = 'modified'}) end)");
    awaitScreen("refused a proposal whose id is not sixteen hex digits");
    lua(
        "vim.schedule(function() require('companion4j.review').show({id = '0123456789abcdef', filePath = '"
            + notes
            + "\\n!touch "
            + pwned
            + "',"
            + " newContent = 'beta\\n', change = 'modified'}) end)");
    awaitScreen("refused a proposal whose file is not an absolute path without control characters");
    assertThat(lua("return #require('companion4j').proposals()")).isEqualTo("0");
    assertThat(lua("return #vim.api.nvim_list_tabpages()")).isEqualTo("1");
    assertThat(pwned).doesNotExist();
  }

  private static final String MAIN =
      """
      package app;

      public final class Main {
        public static void main(String[] args) {
          System.out.println("Hello");
        }
      }
      """;
  private static final String MAIN_PROPOSED =
      """
      package app;

      public final class Main {
        public static void main(String[] args) {
          String name = args.length > 0 ? args[0] : "world";
          System.out.println("Hello, " + name);
        }
      }
      """;

  /**
   * Installs the plugin as the README says: a package on the packpath, set up in init.lua; and
   * {@code companion4j} in {@code ~/.local/bin}, where a release's install.sh links it.
   */
  private static void install(Path home) throws IOException {
    install(home, "{}");
  }

  static void install(Path home, String options) throws IOException {
    Path launcher = home.resolve(".local/bin/companion4j");
    Files.createDirectories(launcher.getParent());
    Files.writeString(
        launcher, "#!/bin/sh\nexec " + String.join(" ", CompanionProcess.command()) + " \"$@\"\n");
    launcher.toFile().setExecutable(true);
    Path pack = home.resolve(".local/share/nvim/site/pack/companion4j/start");
    Files.createDirectories(pack);
    Files.createSymbolicLink(
        pack.resolve("companion4j"), TestPeers.repoRoot().resolve("editors/neovim"));
    Path init = home.resolve(".config/nvim/init.lua");
    Files.createDirectories(init.getParent());
    Files.writeString(
        init,
        """
        vim.cmd('colorscheme desert')
        require('companion4j').setup(%s)
        vim.o.statusline = '%%f %%m%%=%%{v:lua.require("companion4j").statusline()} '
        """
            .formatted(options));
  }

  private void startNeovim(String file) throws IOException {
    startNeovim(env, file);
  }

  private void startNeovim(CliEnvironment in, String file) throws IOException {
    startNeovim(in, file, ConnectedClis.terminalVariables(in));
  }

  /** {@code variables} with {@code ~/.local/bin} first on the PATH, as a user's shell has it. */
  static Map<String, String> withTheLauncher(CliEnvironment in, Map<String, String> variables) {
    variables.put("PATH", in.home().resolve(".local/bin") + ":" + variables.get("PATH"));
    return variables;
  }

  private void startNeovim(CliEnvironment in, String file, Map<String, String> variables)
      throws IOException {
    socket = temp.resolve("nvim.sock");
    terminal =
        Tmux.start(
            List.of(NVIM.toString(), "--listen", socket.toString(), file),
            in.workspace(),
            withTheLauncher(in, variables));
    await().atMost(WAIT).until(() -> Files.exists(socket));
  }

  private static List<Path> locks(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".lock")).toList();
    }
  }

  /** Stops the companions that wrote discovery files in {@code locks}, as their pids say. */
  private static void stopCompanionsOf(Path locks) throws IOException {
    for (Path lock : locks(locks)) {
      long pid = CompanionProcess.JSON.readTree(lock.toFile()).path("ppid").asLong();
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
    }
  }

  private void awaitScreen(String text) {
    await().atMost(WAIT).until(() -> terminal.screen().contains(text));
  }

  /** Types {@code keys} into the running Neovim, as a user at the keyboard would. */
  private void keys(String keys) throws Exception {
    remote("--remote-send", keys);
  }

  /** Runs Lua in the running Neovim and returns its result as a string. */
  private String lua(String chunk) throws Exception {
    return remote(
        "--remote-expr",
        "luaeval(\"(function() "
            + chunk.replace("\\", "\\\\").replace("\"", "\\\"")
            + " end)()\")");
  }

  private String remote(String how, String what) throws Exception {
    return remote(socket, how, what);
  }

  /** Asks the Neovim listening on {@code socket} {@code how} ({@code --remote-send}…). */
  static String remote(Path socket, String how, String what) throws Exception {
    Process send =
        new ProcessBuilder(
                List.of(
                    NVIM.toString(),
                    "--clean",
                    "--headless",
                    "--server",
                    socket.toString(),
                    how,
                    what))
            .redirectErrorStream(true)
            .start();
    String out = new String(send.getInputStream().readAllBytes());
    assertThat(send.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(send.exitValue()).as("%s %s: %s", how, what, out).isZero();
    return out.strip();
  }
}
