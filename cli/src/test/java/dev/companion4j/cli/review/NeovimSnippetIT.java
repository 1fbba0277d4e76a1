package dev.companion4j.cli.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.McpTapClient;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Headless Neovim (Debian's {@code neovim}) with {@code editors/neovim/companion4j.lua} loaded,
 * typed at through its RPC socket as a user types: Qwen Code's own IdeClient must receive the
 * file, cursor and selection as IDE context, and a proposal reviewed in Neovim is answered by its
 * id.
 */
class NeovimSnippetIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path temp;
  private CompanionProcess companion;
  private CliDriver cli;
  private Process nvim;
  private Path socket;

  @AfterEach
  void stop() throws Exception {
    if (nvim != null) {
      nvim.destroy();
      if (!nvim.waitFor(10, TimeUnit.SECONDS)) {
        nvim.destroyForcibly();
      }
    }
    if (cli != null) {
      cli.close();
    }
    if (companion != null) {
      companion.close();
    }
  }

  @Test
  void openingAFileAndMovingTheCursorChangesTheContextTheCliReceives() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("env"));
    Path notes = env.file("docs/notes.txt", "alpha\nbeta\ngamma delta\nepsilon\n");
    companion = CompanionProcess.start(env);
    cli = CliDriver.start(Cli.QWEN, env.workspace(), env.variables());
    assertThat(cli.connect().path("status").asString()).as(cli.stderr()).isEqualTo("connected");
    startNeovim(env);

    // Silent, so no "Press ENTER" prompt can swallow the next keys on a slow machine.
    keys(":silent edit docs/notes.txt<CR>");
    JsonNode focused = cli.awaitContext(c -> active(c).path("path").asString("").equals(notes.toString()), WAIT);
    assertThat(active(focused).path("path").asString()).isEqualTo(notes.toString());

    keys("<Esc>3G7|");
    JsonNode moved = cli.awaitContext(c -> cursor(c, 3, 7), WAIT);
    assertThat(active(moved).has("selectedText")).isFalse();

    keys("vE");
    JsonNode selected = cli.awaitContext(c -> "delta".equals(active(c).path("selectedText").asString(null)), WAIT);
    assertThat(active(selected).path("cursor").path("line").asInt()).isEqualTo(3);

    keys("<Esc>gg0");
    JsonNode cleared = cli.awaitContext(c -> cursor(c, 1, 1), WAIT);
    assertThat(active(cleared).has("selectedText")).isFalse();
  }

  @Test
  void reviewingAProposalAnswersItByIdAndAStaleAnswerChangesNothing() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("env"));
    Path notes = env.file("docs/notes.txt", "alpha\nbeta\n");
    companion = CompanionProcess.start(env);
    startNeovim(env);
    // The SDK client stands in for the CLI: unlike the real ones, it re-proposes on demand.
    try (McpTapClient proposer = new McpTapClient(companion.port(), companion.token(), "proposing-cli")) {
      proposer.call("openDiff", Map.of("filePath", notes.toString(), "newContent", "alpha\nBETA\n"));
      keys(":silent edit docs/notes.txt<CR>");

      assertThat(command("Companion4jReview")).contains("proposal ", "docs/notes.txt", ":Companion4jAccept");
      assertThat(command("echo b:companion4j_diff")).isEqualTo(pendingId(notes));
      keys("Gogamma<Esc>");
      assertThat(command("Companion4jAccept")).contains("accepted; the CLI writes the file");

      await().atMost(WAIT).until(() -> proposer.received("ide/diffAccepted").size() == 1);
      assertThat(proposer.received("ide/diffAccepted").get(0).params()).containsEntry("content", "alpha\nBETA\ngamma\n");

      proposer.call("openDiff", Map.of("filePath", notes.toString(), "newContent", "alpha\nsecond\n"));
      command("Companion4jReview");
      proposer.call("openDiff", Map.of("filePath", notes.toString(), "newContent", "alpha\nthird\n"));
      String newer = pendingId(notes);

      assertThat(command("Companion4jAccept")).contains("is no longer pending: it was replaced by a newer proposal");
      assertThat(proposer.received("ide/diffAccepted")).as("the stale answer reached no CLI").hasSize(1);
      assertThat(companion.get("/editor/diffs/" + newer).body()).contains("alpha\\nthird\\n");
      assertThat(notes).hasContent("alpha\nbeta\n");
    }
  }

  private String pendingId(Path file) {
    for (JsonNode d : CompanionProcess.JSON.readTree(companion.get("/editor/diffs").body())) {
      if (d.path("filePath").asString().equals(file.toString())) {
        return d.path("id").asString();
      }
    }
    throw new AssertionError("no pending diff for " + file);
  }

  private void startNeovim(CliEnvironment env) throws IOException {
    Path nvimBinary = Path.of("/usr/bin/nvim");
    if (!Files.isExecutable(nvimBinary)) {
      throw new IllegalStateException("No " + nvimBinary + "; the test command installs Debian's neovim");
    }
    Path snippet = TestPeers.repoRoot().resolve("editors/neovim/companion4j.lua");
    socket = temp.resolve("nvim.sock");
    ProcessBuilder pb =
        new ProcessBuilder(
                nvimBinary.toString(), "--headless", "--clean", "--listen", socket.toString(),
                "-c", "luafile " + snippet)
            .directory(env.workspace().toFile())
            // Keys come only through the socket; a pipe on stdin would be one more input.
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(temp.resolve("nvim.log").toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    nvim = pb.start();
    await().atMost(WAIT).until(() -> Files.exists(socket) || !nvim.isAlive());
    assertThat(nvim.isAlive()).as("nvim runs; its log: %s", log()).isTrue();
  }

  /** Types {@code keys} into the running Neovim, as a user at the keyboard would. */
  private void keys(String keys) throws Exception {
    Process send =
        new ProcessBuilder(List.of("/usr/bin/nvim", "--clean", "--headless", "--server", socket.toString(), "--remote-send", keys))
            .redirectErrorStream(true)
            .start();
    String out = new String(send.getInputStream().readAllBytes());
    assertThat(send.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(send.exitValue()).as("--remote-send %s: %s", keys, out).isZero();
  }

  /** Runs an Ex command in the running Neovim and returns the messages it printed. */
  private String command(String command) throws Exception {
    Process send =
        new ProcessBuilder(List.of("/usr/bin/nvim", "--clean", "--headless", "--server", socket.toString(),
                "--remote-expr", "execute('" + command.replace("'", "''") + "')"))
            .redirectErrorStream(true)
            .start();
    String out = new String(send.getInputStream().readAllBytes());
    assertThat(send.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(send.exitValue()).as("--remote-expr %s: %s", command, out).isZero();
    return out.strip();
  }

  private String log() {
    try {
      return Files.readString(temp.resolve("nvim.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static JsonNode active(JsonNode context) {
    for (JsonNode f : context.path("workspaceState").path("openFiles")) {
      if (f.path("isActive").asBoolean()) {
        return f;
      }
    }
    return context.path("missing");
  }

  private static boolean cursor(JsonNode context, int line, int character) {
    JsonNode c = active(context).path("cursor");
    return c.path("line").asInt() == line && c.path("character").asInt() == character;
  }
}
