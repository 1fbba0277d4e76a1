package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Neovim in a terminal, with {@code editors/neovim} installed as its README says, attached
 * over {@code companion4j attach} to {@code companion4j serve --agent qwen}: the chat's agent (the
 * real {@code qwen --acp}, against the fake model) reads the buffer's unsaved text, not the disk.
 */
class NeovimUnsavedTextIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration TURN = Duration.ofSeconds(90);
  private static final Path NVIM = Path.of("/usr/bin/nvim");

  @TempDir Path temp;
  private FakeModelServer model;
  private CompanionProcess companion;
  private Tmux terminal;

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

  @Test
  void theChatAgentReadsWhatTheBufferHoldsUnsaved() throws Exception {
    model = new FakeModelServer();
    HeadlessCli qwen =
        new HeadlessCli(HeadlessCli.Kind.QWEN, CliEnvironment.in(temp.resolve("env")), model);
    NeovimPluginIT.install(qwen.env.home(), "{}");
    Path bin = Files.createDirectories(temp.resolve("bin"));
    HeadlessCli.Kind.QWEN.installAsCommand(bin);
    Map<String, String> variables = new LinkedHashMap<>(qwen.variables());
    variables.put("PATH", bin + ":" + variables.get("PATH"));
    companion = CompanionProcess.start(qwen.env, variables, "--agent", "qwen");
    Path notes = Files.writeString(qwen.env.workspace().resolve("notes.txt"), "as saved\n");

    Path socket = temp.resolve("nvim.sock");
    Map<String, String> editor = ConnectedClis.terminalVariables(qwen.env);
    terminal =
        Tmux.start(
            List.of(NVIM.toString(), "--listen", socket.toString(), "notes.txt"),
            qwen.env.workspace(),
            NeovimPluginIT.withTheLauncher(qwen.env, editor));
    await().atMost(WAIT).until(() -> Files.exists(socket));
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains(notes.toString()));

    NeovimPluginIT.remote(socket, "--remote-send", "Otyped in Neovim<Esc>");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":true"));
    // The typed text goes once the typing rests; a cursor move after it is reported after it too
    // (the same delay, started later), so the cursor on line 2 means the whole text has arrived.
    NeovimPluginIT.remote(socket, "--remote-send", "G");
    await().atMost(WAIT).until(() -> companion.get("/ide/editors").body().contains("\"line\":2"));
    await()
        .atMost(TURN)
        .until(
            () ->
                companion
                        .post(
                            "/chat/acp/prompt",
                            Map.of("text", "[[call read_file {\"file_path\":\"" + notes + "\"}]]"))
                        .statusCode()
                    == 204);

    FakeModelServer.Request read =
        await()
            .atMost(TURN)
            .until(
                () ->
                    model.requests().stream()
                        .filter(r -> r.lastRole().equals("tool"))
                        .findFirst()
                        .orElse(null),
                r -> r != null);
    assertThat(read.lastText()).contains("typed in Neovim").contains("as saved");
    assertThat(Files.readString(notes)).isEqualTo("as saved\n");
  }
}
