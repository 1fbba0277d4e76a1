package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole loop as a user lives it, with the real CLIs' TUIs (the model is the fake one on
 * loopback): an edit the model makes is reviewed in the editor, changed there and accepted, and the
 * CLI writes the user's version. Qwen Code runs in a terminal of its own beside each editor; Gemini
 * CLI is started from Neovim with {@code :Companion4jRun gemini}.
 */
class RealClisReviewInTheEditorIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /** Each editor as its plugin's README installs and runs it, and how a user accepts there. */
  enum Editor {
    NEOVIM(List.of("/usr/bin/nvim", "notes.txt"), ":w accepts, :q rejects") {
      @Override
      void install(CliEnvironment env, Path temp) throws Exception {
        NeovimPluginIT.install(env.home(), "{}");
      }

      @Override
      void addLineAndAccept(Tmux editor, String line) throws Exception {
        editor.type("Go" + line);
        editor.press("Escape");
        editor.type(":w");
        editor.press("Enter");
      }
    },
    VIM(List.of("/usr/bin/vim", "notes.txt"), ":w accepts, :q rejects") {
      @Override
      void install(CliEnvironment env, Path temp) throws Exception {
        VimPluginIT.install(env.home());
      }

      @Override
      void addLineAndAccept(Tmux editor, String line) throws Exception {
        NEOVIM.addLineAndAccept(editor, line);
      }
    },
    EMACS(List.of("/usr/bin/emacs", "-nw", "notes.txt"), "C-c C-c accepts") {
      @Override
      void install(CliEnvironment env, Path temp) throws Exception {
        EmacsPluginIT.install(env, temp.resolve("emacs-install.log"));
        // The package's option for a companion4j that is not on the PATH.
        Files.writeString(
            env.home().resolve(".emacs.d/init.el"),
            "(setq inhibit-startup-screen t)\n"
                + "(setq companion4j-command \""
                + String.join(" ", CompanionProcess.command())
                + "\")\n(companion4j-mode 1)\n");
      }

      @Override
      void addLineAndAccept(Tmux editor, String line) throws Exception {
        editor.press("M->");
        editor.type(line);
        editor.press("Enter");
        editor.press("C-c");
        editor.press("C-c");
      }
    };

    final List<String> command;
    final String howToAnswer;

    Editor(List<String> command, String howToAnswer) {
      this.command = command;
      this.howToAnswer = howToAnswer;
    }

    abstract void install(CliEnvironment env, Path temp) throws Exception;

    /** In the proposal the editor shows: adds a last line, then accepts the proposal so edited. */
    abstract void addLineAndAccept(Tmux editor, String line) throws Exception;
  }

  @TempDir Path temp;
  private FakeModelServer model;
  private CompanionProcess companion;
  private Tmux qwen;
  private Tmux editor;

  @AfterEach
  void stop() throws Exception {
    for (Tmux terminal : new Tmux[] {editor, qwen}) {
      if (terminal != null) {
        terminal.close();
      }
    }
    if (companion != null) {
      companion.close();
    }
    if (model != null) {
      model.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Editor.class)
  void anEditProposedInQwenCodeIsChangedAndAcceptedInTheEditorAndQwenCodeWritesIt(Editor which)
      throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("env"));
    Path notes = env.file("notes.txt", "alpha\nbeta\n");
    which.install(env, temp);
    model = new FakeModelServer();
    // The approval mode the README asks for, and the fake model's account.
    Files.createDirectories(env.qwenHome());
    Files.writeString(
        env.qwenHome().resolve("settings.json"),
        """
        {"tools": {"approvalMode": "default"},
         "security": {"auth": {"selectedType": "openai"}},
         "model": {"name": "fake-model"},
         "ui": {"enableFollowupSuggestions": false}}
        """);
    companion = CompanionProcess.start(env);

    Map<String, String> terminal = ConnectedClis.terminalVariables(env);
    if (which == Editor.NEOVIM) {
      NeovimPluginIT.withTheLauncher(env, terminal);
    }
    editor = Tmux.start(which.command, env.workspace(), terminal);
    CliTerminal.awaitScreen(editor, "C4J 0 CLIs", WAIT);

    terminal.put("OPENAI_API_KEY", "sk-fake");
    terminal.put("OPENAI_BASE_URL", model.baseUrl());
    terminal.put("OPENAI_MODEL", "fake-model");
    qwen =
        Tmux.start(
            List.of("node", HeadlessCli.Kind.QWEN.executable().toString()),
            env.workspace(),
            terminal);
    CliTerminal.awaitScreen(qwen, "Do you want to connect Companion4J to Qwen Code?", WAIT);
    CliTerminal.declineTheOfferAndEnableIde(qwen, WAIT);
    CliTerminal.awaitScreen(qwen, "Connected to Companion4J", WAIT);
    CliTerminal.awaitScreen(editor, "C4J 1 CLI", WAIT);

    // Qwen Code overwrites only a file it has read in the session.
    CliTerminal.enter(
        qwen,
        "rewrite notes.txt [[call read_file {\"file_path\":\""
            + notes
            + "\"}]]"
            + " [[write "
            + notes
            + "]]",
        WAIT);
    try {
      CliTerminal.awaitScreen(editor, "proposes an edit to notes.txt: " + which.howToAnswer, WAIT);
    } catch (AssertionError | ConditionTimeoutException e) {
      throw new AssertionError(
          "no proposal in the editor; Qwen Code's terminal:\n" + qwen.screen(), e);
    }
    assertThat(notes).as("nothing is written before the review").hasContent("alpha\nbeta\n");

    which.addLineAndAccept(editor, "by hand");

    String accepted = FakeModelServer.FILE_CONTENT + "by hand\n";
    await().atMost(WAIT).until(() -> Files.readString(notes).equals(accepted));
    // The review closed, and the file's buffer shows what Qwen Code wrote.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(editor.screen())
                    .contains("by hand", FakeModelServer.FILE_CONTENT.strip())
                    .doesNotContain("companion://", "*companion4j", "alpha"));
  }

  @Test
  void geminiCliStartedFromNeovimHasItsNewFileReviewedThere() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("env"));
    env.file("README.md", "# project\n");
    NeovimPluginIT.install(env.home(), "{}");
    model = new FakeModelServer();
    // Gemini CLI's account (the fake model's); folder trust stays on, its default, and this folder
    // is one the user trusted before, as the CLI's trust question records it: answered in Neovim's
    // terminal, the restarted CLI was seen not to offer to connect (FirstFiveMinutesIT answers it).
    Files.createDirectories(env.home().resolve(".gemini"));
    Files.writeString(
        env.home().resolve(".gemini/settings.json"),
        "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");
    Files.writeString(
        env.home().resolve(".gemini/trustedFolders.json"),
        "{\"" + env.workspace() + "\":\"TRUST_FOLDER\"}");
    // `npm install -g @google/gemini-cli`: the pinned CLI as a command on the PATH.
    Path bin = Files.createDirectories(temp.resolve("bin"));
    HeadlessCli.Kind.GEMINI.installAsCommand(bin);
    companion = CompanionProcess.start(env);

    Map<String, String> terminal =
        NeovimPluginIT.withTheLauncher(env, ConnectedClis.terminalVariables(env));
    // No SSH_CONNECTION: in a container the variables of :Companion4jRun must do without it.
    terminal.remove("SSH_CONNECTION");
    terminal.put("PATH", bin + ":" + terminal.get("PATH"));
    terminal.put("GEMINI_API_KEY", "fake");
    terminal.put("GOOGLE_GEMINI_BASE_URL", model.geminiBaseUrl());
    editor = Tmux.start(List.of("/usr/bin/nvim", "README.md"), env.workspace(), terminal);
    CliTerminal.awaitScreen(editor, "C4J 0 CLIs", WAIT);

    editor.type(":Companion4jRun gemini");
    editor.press("Enter");
    CliTerminal.awaitScreen(editor, "Do you want to connect Companion4J to Gemini CLI?", WAIT);
    CliTerminal.declineTheOfferAndEnableIde(editor, WAIT);
    CliTerminal.awaitScreen(editor, "C4J 1 CLI", WAIT);

    Path hello = env.workspace().resolve("hello.txt");
    CliTerminal.enter(editor, "create hello.txt [[write " + hello + "]]", WAIT);
    try {
      CliTerminal.awaitScreen(editor, "proposed hello.txt · :w accepts, :q rejects", WAIT);
    } catch (AssertionError | ConditionTimeoutException e) {
      throw new AssertionError("no proposal in Neovim:\n" + editor.screen(), e);
    }
    assertThat(hello).as("nothing is written before the review").doesNotExist();
    Editor.NEOVIM.addLineAndAccept(editor, "by hand");

    await()
        .atMost(WAIT)
        .until(
            () ->
                Files.exists(hello)
                    && Files.readString(hello).equals(FakeModelServer.FILE_CONTENT + "by hand\n"));
  }
}
