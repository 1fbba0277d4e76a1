package dev.companion4j.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection's transport and file confinement against a scripted agent (fake-agent.mjs): what a
 * real agent could do to a client, done on purpose.
 */
class AcpConnectionTest {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private Path workspace;
  private AcpIdeConnection connection;

  @BeforeEach
  void start() throws Exception {
    workspace = Files.createDirectories(dir.resolve("workspace"));
    connection = AcpIdeConnection.open(fakeAgent(), AcpIdeConnection.Setup.in(workspace), c -> {});
  }

  @AfterEach
  void stop() {
    connection.close();
  }

  @Test
  void aLineThatIsNotJsonIsANoticeAndTheAgentIsStillHeard() throws Exception {
    assertThat(turn("bad line")).isEqualTo("end_turn");

    assertThat(texts()).contains("after the bad line");
    assertThat(notices()).anyMatch(n -> n.contains("not a JSON-RPC message"));
  }

  @Test
  void aLineOverTheCapIsSkippedAndTheAgentIsStillHeard() throws Exception {
    assertThat(turn("huge line")).isEqualTo("end_turn");

    assertThat(texts()).contains("after the huge line");
    assertThat(notices()).anyMatch(n -> n.contains("over 33554432 bytes"));
  }

  @Test
  void anAgentThatExitsMidRequestFailsThePendingCallAtOnce() {
    CompletableFuture<String> turn = connection.prompt("exit");

    // The SDK's own timeout is hours; the failure comes from the agent's exit.
    assertThatThrownBy(() -> turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    await().atMost(LIMIT).until(() -> connection.conversation().state() == Conversation.State.DIED);
    assertThat(notices()).anyMatch(n -> n.contains("exited with code 3"));
  }

  @Test
  void mcpServersReachTheAgentAtSessionNewWithTheirHeadersOnItsInputOnly() throws Exception {
    connection.close();
    AcpIdeConnection.HttpMcpServer tools =
        new AcpIdeConnection.HttpMcpServer(
            "companion4j",
            "http://127.0.0.1:1/ide-tools",
            Map.of("Authorization", "Bearer token-of-the-companion"));
    AcpIdeConnection.Setup setup =
        AcpIdeConnection.Setup.in(workspace).withMcpServers(List.of(tools));
    connection = AcpIdeConnection.open(fakeAgent(), setup, c -> {});

    assertThat(turn("mcp servers")).isEqualTo("end_turn");

    assertThat(texts())
        .anyMatch(
            t ->
                t.contains("\"type\":\"http\"")
                    && t.contains("\"url\":\"http://127.0.0.1:1/ide-tools\"")
                    && t.contains(
                        "{\"name\":\"Authorization\",\"value\":\"Bearer token-of-the-companion\"}"));
    assertThat(tools.toString()).doesNotContain("token-of-the-companion");
    assertThat(setup.toString()).doesNotContain("token-of-the-companion");
    assertThat(
            ProcessHandle.current()
                .descendants()
                .map(p -> p.info().commandLine().orElse(""))
                .filter(l -> l.contains("fake-agent"))
                .toList())
        .isNotEmpty()
        .noneMatch(l -> l.contains("token-of-the-companion"));
  }

  @Test
  void anUnknownUpdateIsANoticeAndTheTurnGoesOn() throws Exception {
    assertThat(turn("unknown update")).isEqualTo("end_turn");

    assertThat(texts()).contains("after the unknown update");
    assertThat(notices()).anyMatch(n -> n.contains("something_new"));
  }

  @Test
  void stoppingKillsWhatTheAgentStartedToo() throws Exception {
    turn("child");
    long pid =
        Long.parseLong(
            texts().stream()
                .filter(t -> t.startsWith("child "))
                .findFirst()
                .orElseThrow()
                .substring(6));
    assertThat(running(pid)).isTrue();

    long start = System.nanoTime();
    connection.close();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LIMIT);
    await().atMost(LIMIT).until(() -> !running(pid));
  }

  /** Alive and not a zombie: a killed process whose parent died waits for PID 1 to reap it. */
  private static boolean running(long pid) throws Exception {
    Path stat = Path.of("/proc/" + pid + "/stat");
    if (!Files.exists(stat)) {
      return false;
    }
    String text = Files.readString(stat);
    return !text.substring(text.lastIndexOf(')') + 2).startsWith("Z");
  }

  @Test
  void whatAnAgentSaidBeforeItExitedIsStillHeard() throws Exception {
    assertThat(turn("answer and exit")).isEqualTo("end_turn");

    assertThat(texts()).contains("last words");
  }

  @Test
  void anUnknownRequestIsAnsweredMethodNotFoundAtOnce() throws Exception {
    assertThat(turn("unknown request")).isEqualTo("end_turn");

    assertThat(texts()).anyMatch(t -> t.contains("-32601"));
  }

  @Test
  void aPermissionRequestIsAnsweredOnceWithTheAgentsOption() throws Exception {
    CompletableFuture<String> turn = connection.prompt("permission");
    await().atMost(LIMIT).until(() -> !connection.conversation().permissions().isEmpty());
    String id = connection.conversation().permissions().get(0).requestId();

    assertThat(connection.answer(id, "no")).isTrue();
    assertThat(connection.answer(id, "yes")).as("a second answer").isFalse();

    assertThat(turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("end_turn");
    assertThat(texts()).anyMatch(t -> t.contains("\"optionId\":\"no\""));
    assertThat(connection.conversation().permissions()).isEmpty();
  }

  @Test
  void cancelAnswersAPendingPermissionCancelled() throws Exception {
    CompletableFuture<String> turn = connection.prompt("permission");
    await().atMost(LIMIT).until(() -> !connection.conversation().permissions().isEmpty());

    connection.cancel();

    turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(texts()).anyMatch(t -> t.contains("\"outcome\":\"cancelled\""));
    assertThat(connection.conversation().permissions()).isEmpty();
  }

  @Test
  void readsInsideTheRootsAnswerTheFile() throws Exception {
    Files.writeString(workspace.resolve("a.txt"), "inside");

    turn("read " + workspace.resolve("a.txt"));

    assertThat(texts()).anyMatch(t -> t.contains("\"content\":\"inside\""));
  }

  @Test
  void aMissingFileIsResourceNotFound() throws Exception {
    turn("read " + workspace.resolve("missing.txt"));

    assertThat(texts()).anyMatch(t -> t.contains("-32002"));
  }

  @Test
  void readsOutsideTheRootsAreRefused() throws Exception {
    Path outside = Files.writeString(dir.resolve("secret.txt"), "secret");
    Files.createSymbolicLink(workspace.resolve("link.txt"), outside);

    turn("read " + outside);
    turn("read " + workspace.resolve("link.txt"));
    turn("read " + workspace.resolve("../secret.txt"));

    assertThat(texts().stream().filter(t -> t.startsWith("read ")))
        .hasSize(3)
        .allMatch(t -> t.contains("Outside the workspace roots") && !t.contains("\"secret\""));
  }

  @Test
  void writesGoInsideTheRootsOnly() throws Exception {
    Path outsideDir = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(workspace.resolve("escape"), outsideDir);

    turn("write " + workspace.resolve("new/b.txt"));
    turn("write " + workspace.resolve("escape/c.txt"));
    turn("write " + dir.resolve("d.txt"));

    assertThat(workspace.resolve("new/b.txt")).hasContent("agent text");
    assertThat(outsideDir.resolve("c.txt")).doesNotExist();
    assertThat(dir.resolve("d.txt")).doesNotExist();
    assertThat(texts().stream().filter(t -> t.contains("Outside the workspace roots"))).hasSize(2);
  }

  @Test
  void anAgentThatWantsALoginSaysWhatToRun() throws Exception {
    AcpAgent agent = fakeAgent().withEnvironment(Map.of("FAKE_AGENT_LOGIN", "key"));

    assertThatThrownBy(
            () -> AcpIdeConnection.open(agent, AcpIdeConnection.Setup.in(workspace), c -> {}))
        .isInstanceOf(AcpException.class)
        .hasMessageContaining("needs a login first (Authentication required)")
        .hasMessageContaining("Run `node " + fakeAgent().command().get(1) + "` in a terminal")
        .hasMessageContaining("the agent offers key, oauth");
  }

  @Test
  void anAgentThatWantsALoginGetsTheMethodTheSetupNames() throws Exception {
    AcpAgent agent = fakeAgent().withEnvironment(Map.of("FAKE_AGENT_LOGIN", "key"));

    try (AcpIdeConnection loggedIn =
        AcpIdeConnection.open(
            agent, AcpIdeConnection.Setup.in(workspace).withAuthMethod("key"), c -> {})) {
      assertThat(loggedIn.sessionId()).isEqualTo("s1");
    }
  }

  private AcpAgent fakeAgent() throws Exception {
    Path agent = Path.of(AcpConnectionTest.class.getResource("fake-agent.mjs").toURI());
    return new AcpAgent(List.of("node", agent.toString()), workspace, Map.of());
  }

  private String turn(String text) throws Exception {
    return connection.prompt(text).get(LIMIT.toSeconds(), TimeUnit.SECONDS);
  }

  private List<String> texts() {
    return connection.conversation().entries().stream()
        .filter(Entry.AssistantMessage.class::isInstance)
        .map(e -> ((Entry.AssistantMessage) e).text())
        .toList();
  }

  private List<String> notices() {
    return connection.conversation().entries().stream()
        .filter(Entry.Notice.class::isInstance)
        .map(e -> ((Entry.Notice) e).text())
        .toList();
  }
}
