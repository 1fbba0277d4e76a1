package dev.companion4j.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.AgentThoughtChunk;
import dev.companion4j.daemon.DaemonEvent.ModelSwitchFailed;
import dev.companion4j.daemon.DaemonEvent.ModelSwitched;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PermissionRequested;
import dev.companion4j.daemon.DaemonEvent.PermissionResolved;
import dev.companion4j.daemon.DaemonEvent.SessionClosed;
import dev.companion4j.daemon.DaemonEvent.ToolCall;
import dev.companion4j.daemon.DaemonEvent.ToolCallUpdate;
import dev.companion4j.daemon.DaemonEvent.UserMessageChunk;
import dev.companion4j.daemon.TurnResult.Outcome;
import dev.companion4j.daemon.testing.LiveDaemon;
import dev.companion4j.daemon.testing.RecordingListener;
import dev.companion4j.daemon.testing.TcpProxy;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client against one real {@code qwen serve} (pinned test peer) whose model is a scripted fake.
 * Each test uses its own session of the shared daemon.
 */
class DaemonSessionTest {
  private static final Duration TURN = Duration.ofSeconds(60);

  @RegisterExtension static final LiveDaemon LIVE = new LiveDaemon();

  private DaemonSession session;
  private RecordingListener events;

  @BeforeEach
  void closeModelGate() {
    LIVE.model().closeGate();
    events = new RecordingListener();
  }

  @AfterEach
  void closeSession() {
    LIVE.model().openGate();
    if (session != null) {
      session.close();
    }
  }

  private DaemonSession open(DaemonClient via, SessionOptions options) {
    session = via.createOrAttach(options);
    session.subscribe(events);
    return session;
  }

  private SessionOptions newThread() {
    return SessionOptions.forWorkspace(LIVE.daemon().workspace().toString()).asNewThread();
  }

  @Test
  void reportsHealthAndCapabilities() {
    assertThat(LIVE.client().health()).isEqualTo("ok");
    Capabilities caps = LIVE.client().capabilities();
    assertThat(caps.version()).isEqualTo(1);
    assertThat(caps.qwenCodeVersion()).isEqualTo("0.24.4");
    assertThat(caps.workspaceCwd()).isEqualTo(LIVE.daemon().workspace().toString());
    assertThat(caps.supports("session_events")).isTrue();
    assertThat(caps.supports("session_set_model")).isTrue();
    assertThat(caps.supports("no_such_feature")).isFalse();
  }

  @Test
  void streamsATextAnswer() {
    open(LIVE.client(), newThread());
    assertThat(session.clientId()).isNotBlank();
    assertThat(session.workspaceCwd()).isEqualTo(LIVE.daemon().workspace().toString());

    PromptTurn turn = session.prompt("say hello");
    TurnResult result = turn.result().join();

    assertThat(result.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(result.stopReason()).isEqualTo("end_turn");
    assertThat(events.answer(turn.promptId())).isEqualTo("Hello from " + QwenDaemon.MODEL);
    assertThat(events.events(AgentMessageChunk.class, turn.promptId())).hasSizeGreaterThan(1);
    assertThat(events.events(UserMessageChunk.class, turn.promptId()))
        .extracting(UserMessageChunk::text)
        .containsExactly("say hello");
    List<Long> ids = events.events().stream().map(e -> e.meta().id()).filter(id -> id > 0).toList();
    assertThat(ids).isSorted().doesNotHaveDuplicates();
    assertThat(session.lastEventId()).isEqualTo(ids.get(ids.size() - 1));
  }

  @Test
  void streamsThoughtsSeparately() {
    open(LIVE.client(), newThread());
    PromptTurn turn = session.prompt("[[think]] and answer");
    assertThat(turn.result().join().outcome()).isEqualTo(Outcome.COMPLETED);

    assertThat(events.events(AgentThoughtChunk.class, turn.promptId()))
        .extracting(AgentThoughtChunk::text)
        .contains("pondering the question");
    assertThat(events.answer(turn.promptId())).isEqualTo("thought done");
  }

  @Test
  void allowedToolCallWritesTheFile() throws Exception {
    open(LIVE.client(), newThread().withApprovalMode(ApprovalMode.DEFAULT));
    Path file = LIVE.daemon().workspace().resolve("allowed.txt");
    PromptTurn turn = session.prompt("please [[write " + file + "]]");

    PermissionRequested request = events.awaitEvent(PermissionRequested.class, r -> true, TURN);
    assertThat(request.locations()).containsExactly(file.toString());
    assertThat(request.options())
        .extracting(PermissionOption::kind)
        .contains("allow_once", "allow_always");
    assertThat(Files.exists(file)).isFalse();
    PermissionOption once =
        request.options().stream()
            .filter(o -> o.kind().equals("allow_once"))
            .findFirst()
            .orElseThrow();

    assertThat(session.respondToPermission(request.requestId(), PermissionDecision.select(once)))
        .isTrue();
    TurnResult result = turn.result().join();

    assertThat(result.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(Files.readString(file)).isEqualTo(FakeModelServer.FILE_CONTENT);
    assertThat(events.events(PermissionResolved.class))
        .anySatisfy(
            r -> {
              assertThat(r.requestId()).isEqualTo(request.requestId());
              assertThat(r.selectedOptionId()).isEqualTo(once.optionId());
            });
    assertThat(events.events(ToolCall.class, turn.promptId()))
        .extracting(ToolCall::kind)
        .contains("edit");
    assertThat(events.events(ToolCallUpdate.class, turn.promptId()))
        .extracting(ToolCallUpdate::status)
        .contains("completed");
    assertThat(events.answer(turn.promptId())).contains("Tool said: Successfully created");
    assertThat(session.respondToPermission(request.requestId(), PermissionDecision.select(once)))
        .as("a request that was already answered")
        .isFalse();
  }

  @Test
  void deniedToolCallLeavesTheDiskAlone() {
    open(LIVE.client(), newThread().withApprovalMode(ApprovalMode.DEFAULT));
    Path file = LIVE.daemon().workspace().resolve("denied.txt");
    PromptTurn turn = session.prompt("please [[write " + file + "]]");

    PermissionRequested request = events.awaitEvent(PermissionRequested.class, r -> true, TURN);
    PermissionOption reject =
        request.options().stream().filter(o -> !o.allows()).findFirst().orElseThrow();
    assertThat(session.respondToPermission(request.requestId(), PermissionDecision.select(reject)))
        .isTrue();
    TurnResult result = turn.result().join();

    assertThat(result.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(Files.exists(file)).isFalse();
    assertThat(events.events(ToolCallUpdate.class, turn.promptId()))
        .anySatisfy(
            u -> {
              assertThat(u.status()).isEqualTo("failed");
              assertThat(u.text()).contains("canceled by the user");
            });
  }

  @Test
  void cancelStopsALongAnswerMidStream() {
    open(LIVE.client(), newThread());
    PromptTurn turn = session.prompt("[[hold]]");
    await().atMost(TURN).until(() -> events.answer(turn.promptId()).contains("h2"));

    session.cancel();
    TurnResult result = turn.result().join();

    assertThat(result.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(result.stopReason()).isEqualTo("cancelled");
    assertThat(events.answer(turn.promptId())).startsWith("h0 h1 h2").doesNotContain("released");
  }

  @Test
  void switchesTheModel() {
    open(LIVE.client(), newThread());
    try {
      switchModelAndBack();
    } finally {
      // The daemon saves the choice as the user's default model; restore it for the other tests.
      session.setModel(QwenDaemon.MODEL);
    }
  }

  private void switchModelAndBack() {
    session.setModel(QwenDaemon.OTHER_MODEL);
    ModelSwitched switched = events.awaitEvent(ModelSwitched.class, e -> true, TURN);
    assertThat(switched.modelId()).startsWith(QwenDaemon.OTHER_MODEL);

    PromptTurn turn = session.prompt("who are you");
    assertThat(turn.result().join().outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(events.answer(turn.promptId())).isEqualTo("Hello from " + QwenDaemon.OTHER_MODEL);
    assertThat(LIVE.model().requests())
        .anySatisfy(
            r -> {
              assertThat(r.model()).isEqualTo(QwenDaemon.OTHER_MODEL);
              assertThat(r.lastText()).contains("who are you");
            });

    assertThatThrownBy(() -> session.setModel("no-such-model"))
        .isInstanceOf(DaemonException.class)
        .hasMessageContaining("no-such-model")
        .hasMessageContaining("not found");
    ModelSwitchFailed failed = events.awaitEvent(ModelSwitchFailed.class, e -> true, TURN);
    assertThat(failed.requestedModelId()).isEqualTo("no-such-model");
  }

  @Test
  void resumesAfterTheConnectionIsCutWithoutLosingOrRepeatingAChunk() throws Exception {
    try (TcpProxy proxy = new TcpProxy(LIVE.daemon().port());
        DaemonClient viaProxy = DaemonClient.connect(proxy.url())) {
      open(viaProxy, newThread());
      PromptTurn turn = session.prompt("[[count 60 gate 30]]");
      await().atMost(TURN).until(() -> events.answer(turn.promptId()).contains("c0029"));

      proxy.cutAll();
      ConnectionStatus dropped = events.awaitStatus(State.RECONNECTING, TURN);
      LIVE.model().openGate();
      TurnResult result = turn.result().join();

      assertThat(result.outcome()).isEqualTo(Outcome.COMPLETED);
      String expected =
          IntStream.range(0, 60)
              .mapToObj(i -> String.format("c%04d ", i))
              .collect(Collectors.joining());
      assertThat(events.answer(turn.promptId())).isEqualTo(expected);
      assertThat(dropped.retryIn()).isEqualTo(Duration.ofSeconds(3));
      assertThat(events.statuses())
          .anySatisfy(
              s -> {
                assertThat(s.state()).isEqualTo(State.CONNECTED);
                assertThat(s.attempt()).isEqualTo(1);
              });
      List<Long> ids =
          events.events().stream().map(e -> e.meta().id()).filter(id -> id > 0).toList();
      assertThat(ids).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void treatsASilentConnectionAsDropped() throws Exception {
    try (TcpProxy proxy = new TcpProxy(LIVE.daemon().port());
        DaemonClient viaProxy =
            DaemonClient.builder()
                .baseUrl(proxy.url())
                .heartbeatTimeout(Duration.ofSeconds(2))
                .build()) {
      open(viaProxy, newThread());
      proxy.freeze();
      ConnectionStatus dropped = events.awaitStatus(State.RECONNECTING, TURN);
      proxy.thaw();

      assertThat(dropped.detail()).isNotBlank();
      PromptTurn turn = session.prompt("still there?");
      assertThat(turn.result().join().outcome()).isEqualTo(Outcome.COMPLETED);
      assertThat(events.answer(turn.promptId())).isEqualTo("Hello from " + QwenDaemon.MODEL);
    }
  }

  @Test
  void listsAndDeletesSessions() {
    open(LIVE.client(), newThread());
    assertThat(LIVE.client().listSessions(LIVE.daemon().workspace().toString()))
        .extracting(SessionSummary::sessionId)
        .contains(session.sessionId());

    session.delete();

    SessionClosed closed = events.awaitEvent(SessionClosed.class, e -> true, TURN);
    assertThat(closed.meta().sessionId()).isEqualTo(session.sessionId());
    events.awaitStatus(State.LOST, TURN);
  }

  @Test
  void refusesToPromptBeforeSubscribing() {
    session = LIVE.client().createOrAttach(newThread());
    assertThatThrownBy(() -> session.prompt("hello"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("subscribe");
  }

  @Test
  void reportsTheDaemonsReasonForARefusedSession() {
    assertThatThrownBy(
            () ->
                LIVE.client()
                    .createOrAttach(SessionOptions.forWorkspace("/definitely/not/registered")))
        .isInstanceOf(DaemonException.class)
        .satisfies(e -> assertThat(((DaemonException) e).status()).isEqualTo(400))
        .hasMessageContaining("POST /session");
  }
}
