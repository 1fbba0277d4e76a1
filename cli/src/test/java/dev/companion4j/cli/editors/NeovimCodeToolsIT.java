package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The code tools of the extension, answered by Neovim's language server: Debian's Neovim in a
 * terminal with the plugin installed as its README says and the real basedpyright of test-peers
 * attached by the user's configuration, following {@code companion4j serve}; the real Qwen Code and
 * Gemini CLI headless with the extension installed, their fake model calling the tools. A rename
 * opens in Neovim as one change; accepting it writes every file, rejecting it none.
 */
class NeovimCodeToolsIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration TURN = Duration.ofSeconds(240);
  private static final Path NVIM = Path.of("/usr/bin/nvim");

  private static final String SHAPES =
      """
      class Shape:
          def area(self) -> float:
              return 0.0


      class Circle(Shape):
          def area(self) -> float:
              return 3.14


      def make_circle() -> Circle:
          return Circle()
      """;
  private static final String GEOMETRY =
      """
      from shapes import make_circle


      def total_area() -> float:
          return make_circle().area() + make_circle().area()
      """;
  private static final String REPORT =
      """
      from shapes import make_circle


      def report() -> str:
          return "area " + str(make_circle())
      """;

  @TempDir Path temp;
  private FakeModelServer model;
  private CompanionProcess companion;
  private Tmux terminal;
  private Path socket;

  @AfterEach
  void stop() throws Exception {
    try (FakeModelServer m = model) {
      if (terminal != null) {
        terminal.close();
      }
      if (companion != null) {
        companion.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theCodeToolsAreAnsweredByNeovimsLanguageServerAndARenameIsReviewedThereAsOneChange(Kind kind)
      throws Exception {
    model = new FakeModelServer();
    HeadlessCli cli = new HeadlessCli(kind, CliEnvironment.in(temp.resolve("env")), model);
    HeadlessCli.Result install = cli.install(CompanionProcess.command());
    assertThat(install.exitCode()).as(install.stdout() + install.stderr()).isZero();
    Path ws = cli.env.workspace();
    Path shapes = cli.env.file("shapes.py", SHAPES);
    Path geometry = cli.env.file("geometry.py", GEOMETRY);
    Path report = cli.env.file("report.py", REPORT);
    companion = CompanionProcess.start(cli.env, cli.variables());
    startNeovim(cli.env, "report.py");

    String queries =
        cli.prompt(
                "Look around. "
                    + kind.ideToolCall(
                        "find_definition", "{\"path\":\"report.py\",\"line\":5,\"column\":26}")
                    + kind.ideToolCall(
                        "find_references", "{\"path\":\"shapes.py\",\"line\":11,\"column\":5}")
                    + kind.ideToolCall("workspace_symbols", "{\"query\":\"Circ\"}")
                    + kind.ideToolCall(
                        "call_hierarchy",
                        "{\"path\":\"shapes.py\",\"line\":11,\"column\":5,\"direction\":\"incoming\"}")
                    + kind.ideToolCall(
                        "type_hierarchy",
                        "{\"path\":\"shapes.py\",\"line\":6,\"column\":7,\"direction\":\"supertypes\"}"),
                Map.of())
            .stdout();
    List<String> results = cli.toolResults(0);
    assertThat(results).as(queries).hasSize(5);
    assertThat(results.get(0)).contains(shapes + ":11:5: def make_circle() -> Circle:");
    assertThat(results.get(1))
        .contains("6 references")
        .contains(shapes + ":11:5: def make_circle() -> Circle:  [declaration]")
        .contains(geometry + ":1:20: from shapes import make_circle")
        .contains(geometry + ":5:12: return make_circle().area() + make_circle().area()")
        .contains(geometry + ":5:35: ")
        .contains(report + ":1:20: ")
        .contains(report + ":5:26: return \"area \" + str(make_circle())");
    assertThat(results.get(2))
        .contains("Circle (class) at " + shapes + ":6:7: class Circle(Shape):");
    assertThat(results.get(3))
        .contains("report (function) at " + report + ":5:26: ")
        .contains("total_area (function) at " + geometry + ":5:12: ")
        .contains("total_area (function) at " + geometry + ":5:35: ");
    // basedpyright has no type hierarchy: the model hears so, not "none found".
    assertThat(results.get(4)).contains("typeHierarchyProvider");

    String rename =
        kind.ideToolCall(
            "rename_symbol",
            "{\"path\":\"shapes.py\",\"line\":11,\"column\":5,\"newName\":\"make_disc\"}");
    int before = model.requests().size();
    CompletableFuture<HeadlessCli.Result> rejected = prompt(cli, "Rename it. " + rename);
    awaitTheChangeOnShow(shapes, geometry, report);
    keys(":Companion4jReject<CR>");
    assertThat(rejected.get(TURN.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    assertThat(cli.toolResults(before)).singleElement().asString().contains("rejected");
    assertThat(Files.readString(shapes)).isEqualTo(SHAPES);
    assertThat(Files.readString(geometry)).isEqualTo(GEOMETRY);
    assertThat(Files.readString(report)).isEqualTo(REPORT);

    before = model.requests().size();
    CompletableFuture<HeadlessCli.Result> accepted = prompt(cli, "Rename it. " + rename);
    awaitTheChangeOnShow(shapes, geometry, report);
    keys(":Companion4jAccept<CR>");
    assertThat(accepted.get(TURN.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    assertThat(cli.toolResults(before))
        .singleElement()
        .asString()
        .contains("The user accepted the rename to make_disc");
    assertThat(Files.readString(shapes)).isEqualTo(SHAPES.replace("make_circle", "make_disc"));
    assertThat(Files.readString(geometry)).isEqualTo(GEOMETRY.replace("make_circle", "make_disc"));
    assertThat(Files.readString(report)).isEqualTo(REPORT.replace("make_circle", "make_disc"));
    // The buffer the user edits holds the written text, not the text before.
    await()
        .atMost(WAIT)
        .until(
            () ->
                lua(
                    "return vim.api.nvim_buf_get_lines(vim.fn.bufnr('"
                        + report
                        + "'), 0, 1, false)[1]"),
            line -> line.equals("from shapes import make_disc"));
  }

  /** One headless turn in the background: a rename waits for the user's decision in Neovim. */
  private static CompletableFuture<HeadlessCli.Result> prompt(HeadlessCli cli, String text) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return cli.prompt(text, Map.of());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** The rename on show in Neovim: one change holding the three files. */
  private void awaitTheChangeOnShow(Path... files) {
    String expected =
        String.join(",", java.util.Arrays.stream(files).map(Path::toString).sorted().toList());
    await()
        .atMost(TURN)
        .until(
            () ->
                lua(
                    "local c = require('companion4j').changes()[1]; if not c then return '' end;"
                        + " local p = vim.deepcopy(c.paths); table.sort(p); return table.concat(p, ',')"),
            expected::equals);
  }

  /**
   * Neovim in a terminal, with the plugin and a configuration that attaches basedpyright to Python
   * files, as a user's does; returns once the server has listed the project and the plugin follows
   * the companion.
   */
  private void startNeovim(CliEnvironment env, String file) throws Exception {
    NeovimPluginIT.install(env.home(), "{}");
    Path server = TestPeers.dir().resolve("node_modules/.bin/basedpyright-langserver");
    assertThat(server).as("run ./test.sh to install test-peers").isExecutable();
    Files.writeString(
        env.home().resolve(".config/nvim/init.lua"),
        """
        local basedpyright
        vim.api.nvim_create_autocmd('FileType', {
          pattern = 'python',
          callback = function(args)
            basedpyright = basedpyright or vim.lsp.start_client({
              name = 'basedpyright', cmd = { '%s', '--stdio' }, root_dir = vim.fn.getcwd() })
            vim.lsp.buf_attach_client(args.buf, basedpyright)
          end,
        })
        """
            .formatted(server),
        StandardOpenOption.APPEND);
    socket = temp.resolve("nvim.sock");
    terminal =
        Tmux.start(
            List.of(NVIM.toString(), "--listen", socket.toString(), file),
            env.workspace(),
            NeovimPluginIT.withTheLauncher(env, ConnectedClis.terminalVariables(env)));
    await().atMost(WAIT).until(() -> Files.exists(socket));
    await().atMost(WAIT).until(() -> terminal.screen().contains("C4J 0 CLIs"));
    // A server knows the files not open only once it has listed the project; asked before, it
    // answers for the open ones alone.
    await()
        .atMost(WAIT)
        .until(
            () ->
                lua(
                    "local found = require('companion4j.intelligence').workspace_symbols('"
                        + env.workspace().resolve(file)
                        + "', 'Circle'); return found and #found.items or 0"),
            n -> !n.equals("0"));
  }

  /** Types {@code keys} into the running Neovim, as a user at the keyboard would. */
  private void keys(String keys) throws Exception {
    NeovimPluginIT.remote(socket, "--remote-send", keys);
  }

  /** Runs Lua in the running Neovim and returns its result as a string. */
  private String lua(String chunk) throws Exception {
    return NeovimPluginIT.remote(
        socket,
        "--remote-expr",
        "luaeval(\"(function() "
            + chunk.replace("\\", "\\\\").replace("\"", "\\\"")
            + " end)()\")");
  }
}
