package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.chat.TerminalScreen;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.AskUserQuestion;
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
 * {@code companion4j chat --agent qwen|gemini} from the shaded jar in a pseudo-terminal (tmux): the
 * real {@code qwen} or {@code gemini} on the PATH, as a user installed it, in a home of its own
 * with default settings, against the fake model.
 */
class AcpChatIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private FakeModelServer model;
  private HeadlessCli cli;
  private Tmux terminal;
  private TerminalScreen screen;

  private void start(HeadlessCli.Kind kind) throws Exception {
    model = new FakeModelServer();
    cli = new HeadlessCli(kind, CliEnvironment.in(dir), model);
    if (kind == HeadlessCli.Kind.GEMINI) {
      // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
      cli.trustTheWorkspace();
    }
    Path bin = Files.createDirectories(dir.resolve("bin"));
    kind.installAsCommand(bin);
    Map<String, String> env = new LinkedHashMap<>(cli.variables());
    env.put("PATH", bin + ":" + env.get("PATH"));
    Path jar = Path.of(System.getProperty("companion4j.repoRoot"), "cli/target/companion4j.jar");
    assertThat(jar).as("the shaded jar; failsafe runs after `package`").isRegularFile();
    String java = ProcessHandle.current().info().command().orElse("java");
    terminal =
        Tmux.start(
            List.of(
                java,
                "-jar",
                jar.toString(),
                "chat",
                "--agent",
                kind == HeadlessCli.Kind.QWEN ? "qwen" : "gemini"),
            cli.env.workspace(),
            env);
    screen = new TerminalScreen(terminal, LIMIT);
  }

  @AfterEach
  void stop() throws Exception {
    try (FakeModelServer m = model;
        Tmux t = terminal) {
      if (m != null) {
        m.openGate();
      }
    }
  }

  @Test
  void qwenCodesQuestionsAreAskedOneByOneAndAnsweredByNumberOrInTheUsersWords() throws Exception {
    screen.awaitScreen("over ACP", "[approval mode] default");

    screen.send(AskUserQuestion.PROMPT);
    screen.awaitScreen(
        "[question] Library: " + AskUserQuestion.FIRST,
        "2) java.time - built in",
        "Answer: a number, or your own words; 0 declines");
    screen.send("1,2");
    screen.awaitThat(
        "a single choice takes one number", () -> screen.count("Answer: a number,") >= 2);
    screen.send("2");
    screen.awaitScreen("[question] Checks: Which checks?", "Answer: numbers like 1,2");
    screen.send("my own words");
    screen.awaitScreen("**Library**: java.time", "**Checks**: my own words", "[done]");
  }

  @Test
  void chatsWithQwenOverAcp() throws Exception {
    start(HeadlessCli.Kind.QWEN);
    screen.awaitScreen("over ACP", "[modes] plan, default, auto-edit", "> ");
    screen.awaitScreen("[approval mode] default: asks before edits and commands");

    screen.send("say hello");
    screen.awaitScreen("Hello from fake-model", "[done]");
    screen.awaitScreen("[commands] /");
    // The agent lists this session too, titled by its first prompt.
    screen.send("/sessions");
    screen.awaitScreen("[sessions] go on in one with --load ID");
    screen.awaitThat("the session titled by its prompt", () -> screen.count("say hello") >= 2);

    Path denied = cli.env.workspace().resolve("denied.txt");
    aWriteDeniedAndOneAllowed(denied, cli.env.workspace().resolve("allowed.txt"));
    assertThat(denied).doesNotExist();

    screen.send("/mode auto-edit");
    screen.awaitScreen("[approval mode] auto-edit");
    Path unasked = cli.env.workspace().resolve("unasked.txt");
    long askedBefore = screen.count("[permission]");
    screen.send("please [[write " + unasked + "]]");
    screen.awaitThat("the unasked turn is done", () -> screen.count("[done]") >= 4);
    assertThat(Files.readString(unasked)).isEqualTo(FakeModelServer.FILE_CONTENT);
    assertThat(screen.count("[permission]")).isEqualTo(askedBefore);

    screen.send("[[hold]]");
    screen.awaitScreen("h0 h1 h2");
    terminal.press("C-c");
    screen.awaitScreen("^C cancelling the turn", "[note] Cancelled.");
    assertThat(terminal.screen())
        .as("the agent outlives Ctrl-C")
        .doesNotContain("exited with code");

    screen.send("/quit");
    screen.awaitThat("the chat exited", () -> terminal.exitStatus() != null);
    assertThat(terminal.exitStatus()).as(terminal.screen()).isZero();
  }

  /**
   * Gemini CLI 0.61 writes only files that exist through the client (see docs/chat-acp.md), so its
   * writes go to files made first.
   */
  @Test
  void chatsWithGeminiOverAcp() throws Exception {
    start(HeadlessCli.Kind.GEMINI);
    screen.awaitScreen("over ACP", "[modes] default", "> ");
    screen.awaitScreen("[approval mode] default");

    screen.send("say hello");
    screen.awaitScreen("Hello from", "[done]");
    screen.send("/sessions");
    screen.awaitScreen("[sessions] gemini-cli does not list its sessions");

    Path denied = Files.writeString(cli.env.workspace().resolve("denied.txt"), "before\n");
    aWriteDeniedAndOneAllowed(
        denied, Files.writeString(cli.env.workspace().resolve("allowed.txt"), "before\n"));
    assertThat(Files.readString(denied)).isEqualTo("before\n");

    screen.send("/quit");
    screen.awaitThat("the chat exited", () -> terminal.exitStatus() != null);
    assertThat(terminal.exitStatus()).as(terminal.screen()).isZero();
  }

  /** The second and third turns: a write the user denies, then one allowed once, written. */
  private void aWriteDeniedAndOneAllowed(Path denied, Path allowed) throws Exception {
    screen.send("please [[write " + denied + "]]");
    screen.awaitScreen("[permission]", "Allow? number, or o = once, a = always, d = deny");
    screen.send("d");
    screen.awaitThat("the refused turn is done", () -> screen.count("[done]") >= 2);

    long asked = screen.count("[permission]");
    screen.send("please [[write " + allowed + "]]");
    screen.awaitThat("a second permission question", () -> screen.count("[permission]") > asked);
    screen.send("o");
    screen.awaitThat("the allowed turn is done", () -> screen.count("[done]") >= 3);
    assertThat(Files.readString(allowed)).isEqualTo(FakeModelServer.FILE_CONTENT);
  }
}
