package dev.companion4j.cli.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.PermissionDecision;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The chat's arguments, errors and permission answers, without a daemon. */
class ChatCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return ChatCommand.run(
        args,
        new ByteArrayInputStream(new byte[0]),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        env,
        action -> {});
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void printsUsage() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "--daemon URL",
            "--token-env VAR",
            "--workspace DIR",
            "Ctrl-C cancels",
            "--agent AGENT");
  }

  @Test
  void explainsBadArguments() {
    assertThat(run(Map.of(), "--bogus")).isEqualTo(2);
    assertThat(err()).contains("unknown argument '--bogus'");
    assertThat(run(Map.of(), "--daemon")).isEqualTo(2);
    assertThat(err()).contains("--daemon needs a value");
    assertThat(run(Map.of(), "--workspace", "relative/dir")).isEqualTo(2);
    assertThat(err()).contains("absolute path on the daemon's host");
    assertThat(run(Map.of(), "--approval-mode", "sometimes")).isEqualTo(2);
    assertThat(err()).contains("unknown approval mode 'sometimes'", "auto-edit");
  }

  @Test
  void theAcpPathTakesNoneOfTheDaemonsOptions() {
    assertThat(run(Map.of(), "--agent", "qwen", "--daemon", "http://127.0.0.1:1")).isEqualTo(2);
    assertThat(err()).contains("--agent starts the agent itself");
    assertThat(run(Map.of(), "--load", "abc")).isEqualTo(2);
    assertThat(err()).contains("--load goes with --agent");
  }

  @Test
  void anAgentThatCannotStartSaysWhy() {
    assertThat(run(Map.of(), "--agent", "no-such-agent-command --acp")).isEqualTo(1);
    assertThat(err()).contains("Cannot start the agent `no-such-agent-command --acp`");
  }

  @Test
  void readsTheTokenOnlyFromTheNamedVariable() {
    assertThat(run(Map.of(), "--token-env", "MY_TOKEN")).isEqualTo(2);
    assertThat(err()).contains("MY_TOKEN is not set");
    assertThat(run(Map.of(), "--daemon", "http://10.1.2.3:4170")).isEqualTo(2);
    assertThat(err()).contains("token is required");
    assertThat(run(Map.of(), "--daemon", "http://me:pw@127.0.0.1:4170")).isEqualTo(2);
    assertThat(err()).contains("must not contain credentials").doesNotContain("pw@");
  }

  @Test
  void saysWhenTheDaemonIsNotThere() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    assertThat(
            run(
                Map.of("T", "secret-token-value"),
                "--daemon",
                "http://127.0.0.1:" + port,
                "--token-env",
                "T"))
        .isEqualTo(1);
    assertThat(err())
        .contains("cannot reach the daemon at 127.0.0.1:" + port + " ")
        .doesNotContain("secret-token-value");
  }

  @Test
  void mapsPermissionAnswersToTheOfferedOptions() {
    PermissionOption always =
        new PermissionOption("proceed_always", "Allow All Edits", "allow_always");
    PermissionOption once = new PermissionOption("proceed_once", "Allow", "allow_once");
    PermissionOption reject = new PermissionOption("cancel", "Reject", "reject_once");
    PendingPermission request =
        new PendingPermission(
            "r",
            "call",
            "Write",
            "edit",
            List.of("/w/a.txt"),
            List.of(always, once, reject),
            List.of(),
            List.of());

    assertThat(ChatView.decide(request, "o")).contains(PermissionDecision.select(once));
    assertThat(ChatView.decide(request, " A ")).contains(PermissionDecision.select(always));
    assertThat(ChatView.decide(request, "d")).contains(PermissionDecision.select(reject));
    assertThat(ChatView.decide(request, "2")).contains(PermissionDecision.select(once));
    assertThat(ChatView.decide(request, "4")).isEmpty();
    assertThat(ChatView.decide(request, "maybe")).isEmpty();

    PendingPermission onlyAllow =
        new PendingPermission(
            "r", "call", "Run", "execute", List.of(), List.of(once), List.of(), List.of());
    assertThat(ChatView.decide(onlyAllow, "d"))
        .as("no reject option offered: cancel")
        .contains(PermissionDecision.cancel());
    assertThat(ChatView.decide(onlyAllow, "a")).isEqualTo(Optional.empty());
  }
}
