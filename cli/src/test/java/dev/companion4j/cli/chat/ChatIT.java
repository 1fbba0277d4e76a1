package dev.companion4j.cli.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.daemon.testing.TcpProxy;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code companion4j chat} from the shaded jar in a pseudo-terminal (tmux), against the real {@code
 * qwen serve} with a scripted model: typed prompts, streamed answers, permission questions, a model
 * switch, Ctrl-C, and a dropped connection.
 */
class ChatIT {
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final Pattern CHUNK = Pattern.compile("c\\d{4}");

  private FakeModelServer model;
  private QwenDaemon daemon;
  private TcpProxy proxy;
  private Tmux terminal;
  private TerminalScreen screen;

  @BeforeEach
  void start() throws Exception {
    model = new FakeModelServer();
    daemon = QwenDaemon.start(model);
    proxy = new TcpProxy(daemon.port());
    Path jar = TestPeers.repoRoot().resolve("cli/target/companion4j.jar");
    assertThat(jar).as("the shaded jar; failsafe runs after `package`").isRegularFile();
    String java = ProcessHandle.current().info().command().orElse("java");
    terminal =
        Tmux.start(
            List.of(
                java,
                "-jar",
                jar.toString(),
                "chat",
                "--daemon",
                proxy.url(),
                "--workspace",
                daemon.workspace().toString(),
                "--new"));
    screen = new TerminalScreen(terminal, LIMIT);
  }

  @AfterEach
  void stop() throws Exception {
    try (FakeModelServer m = model;
        QwenDaemon d = daemon;
        TcpProxy p = proxy;
        Tmux t = terminal) {
      if (m != null) {
        m.openGate();
      }
    }
  }

  private void awaitScreen(String... parts) {
    screen.awaitScreen(parts);
  }

  private void awaitThat(String what, Callable<Boolean> condition) {
    screen.awaitThat(what, condition);
  }

  private long count(String part) throws Exception {
    return screen.count(part);
  }

  private void send(String line) throws Exception {
    screen.send(line);
  }

  @Test
  void chatsThroughAPseudoTerminal() throws Exception {
    awaitScreen("Files, MCP servers and credentials live on the daemon's host", "> ");
    awaitScreen("[approval mode] default: asks before edits and commands");

    send("say hello");
    awaitScreen("Hello from fake-model", "[done]");

    Path allowed = daemon.workspace().resolve("from-chat.txt");
    send("please [[write " + allowed + "]]");
    awaitScreen("[permission]", "Allow? number, or o = once, a = always, d = deny");
    assertThat(terminal.screen()).contains("[once]", "[always]", "[deny]");
    assertThat(Files.exists(allowed)).isFalse();
    send("o");
    awaitScreen("[tool done]", "Tool said: Successfully created");
    assertThat(Files.readString(allowed)).isEqualTo(FakeModelServer.FILE_CONTENT);

    Path denied = daemon.workspace().resolve("denied-in-chat.txt");
    long permissionsBefore = count("[permission]");
    send("please [[write " + denied + "]]");
    awaitThat("a second permission question", () -> count("[permission]") > permissionsBefore);
    send("d");
    awaitScreen("[tool failed]");
    assertThat(Files.exists(denied)).isFalse();

    send("/model " + QwenDaemon.OTHER_MODEL);
    awaitScreen("[model] now " + QwenDaemon.OTHER_MODEL);
    long doneBefore = count("[done]");
    send("who is answering");
    awaitScreen("Hello from " + QwenDaemon.OTHER_MODEL);
    awaitThat("the answer is done", () -> count("[done]") > doneBefore);

    long doneBeforeHold = count("[done]");
    send("[[hold]]");
    awaitScreen("h0 h1 h2");
    terminal.press("C-c");
    awaitScreen("^C cancelling the turn", "[note] Cancelled.");
    assertThat(terminal.screen()).doesNotContain("released");
    assertThat(count("[done]")).isEqualTo(doneBeforeHold);

    model.closeGate();
    long doneBeforeCount = count("[done]");
    send("[[count 40 gate 20]]");
    awaitScreen("c0019");
    proxy.cutAll();
    awaitScreen("[connection lost");
    model.openGate();
    awaitScreen("[reconnected; resuming after event", "c0039");
    String screen = terminal.screen();
    List<String> chunks = chunks(screen.substring(screen.indexOf("[[count 40 gate 20]]") + 20));
    assertThat(chunks)
        .as("every chunk once, in order, across the reconnect")
        .isEqualTo(
            IntStream.range(0, 40)
                .mapToObj(i -> String.format("c%04d", i))
                .collect(Collectors.toList()));

    awaitThat("the long answer is done", () -> count("[done]") > doneBeforeCount);
    send("/quit");
    awaitThat("the chat exited", () -> terminal.exitStatus() != null);
    assertThat(terminal.exitStatus()).isZero();
  }

  private static List<String> chunks(String text) {
    Matcher m = CHUNK.matcher(text);
    return m.results().map(r -> r.group()).collect(Collectors.toList());
  }
}
