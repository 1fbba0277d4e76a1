package dev.companion4j.cli.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code companion4j chat --agent qwen} from the shaded jar in a pseudo-terminal (tmux): the real
 * {@code qwen} on the PATH, as a user installed it, in a home of its own with default settings,
 * against the fake model.
 */
class AcpChatIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private FakeModelServer model;
  private HeadlessCli qwen;
  private Tmux terminal;

  @BeforeEach
  void start() throws Exception {
    model = new FakeModelServer();
    qwen = new HeadlessCli(HeadlessCli.Kind.QWEN, CliEnvironment.in(dir), model);
    Path bin = Files.createDirectories(dir.resolve("bin"));
    HeadlessCli.Kind.QWEN.installAsCommand(bin);
    Map<String, String> env = new LinkedHashMap<>(qwen.variables());
    env.put("PATH", bin + ":" + env.get("PATH"));
    Path jar = Path.of(System.getProperty("companion4j.repoRoot"), "cli/target/companion4j.jar");
    assertThat(jar).as("the shaded jar; failsafe runs after `package`").isRegularFile();
    String java = ProcessHandle.current().info().command().orElse("java");
    terminal =
        Tmux.start(
            List.of(java, "-jar", jar.toString(), "chat", "--agent", "qwen"),
            qwen.env.workspace(),
            env);
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
  void chatsWithQwenOverAcp() throws Exception {
    awaitScreen("over ACP", "[modes] plan, default, auto-edit", "> ");
    awaitScreen("[approval mode] default: asks before edits and commands");

    send("say hello");
    awaitScreen("Hello from fake-model", "[done]");
    awaitScreen("[commands] /");

    Path denied = qwen.env.workspace().resolve("denied.txt");
    send("please [[write " + denied + "]]");
    awaitScreen("[permission]", "Allow? number, or o = once, a = always, d = deny");
    send("d");
    awaitThat("the refused turn is done", () -> count("[done]") >= 2);
    assertThat(denied).doesNotExist();

    Path allowed = qwen.env.workspace().resolve("allowed.txt");
    long asked = count("[permission]");
    send("please [[write " + allowed + "]]");
    awaitThat("a second permission question", () -> count("[permission]") > asked);
    send("o");
    awaitThat("the file is written", () -> Files.exists(allowed));
    assertThat(Files.readString(allowed)).isEqualTo(FakeModelServer.FILE_CONTENT);

    send("/mode auto-edit");
    awaitScreen("[approval mode] auto-edit");
    Path unasked = qwen.env.workspace().resolve("unasked.txt");
    long askedBefore = count("[permission]");
    send("please [[write " + unasked + "]]");
    awaitThat("the file is written without asking", () -> Files.exists(unasked));
    assertThat(count("[permission]")).isEqualTo(askedBefore);

    send("[[hold]]");
    awaitScreen("h0 h1 h2");
    terminal.press("C-c");
    awaitScreen("^C cancelling the turn", "[note] Cancelled.");

    send("/quit");
    awaitThat("the chat exited", () -> terminal.exitStatus() != null);
    assertThat(terminal.exitStatus()).as(terminal.screen()).isZero();
  }

  private void send(String line) throws Exception {
    terminal.type(line);
    terminal.press("Enter");
  }

  private long count(String part) throws Exception {
    return Pattern.compile(Pattern.quote(part)).matcher(terminal.screen()).results().count();
  }

  private void awaitScreen(String... parts) {
    awaitThat(
        "the screen shows " + String.join(" and ", parts),
        () -> {
          String screen = terminal.screen();
          for (String part : parts) {
            if (!screen.contains(part)) {
              return false;
            }
          }
          return true;
        });
  }

  /** Waits for a condition; on timeout the failure shows the terminal. */
  private void awaitThat(String what, Callable<Boolean> condition) {
    try {
      await().atMost(LIMIT).until(condition);
    } catch (ConditionTimeoutException e) {
      String screen;
      try {
        screen = terminal.screen();
      } catch (Exception unreadable) {
        screen = "(unreadable: " + unreadable.getMessage() + ")";
      }
      throw new AssertionError(
          "timed out waiting until " + what + "; the terminal shows:\n" + screen, e);
    }
  }
}
