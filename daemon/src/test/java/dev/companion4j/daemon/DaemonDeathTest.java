package dev.companion4j.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.ConnectionStatus.State;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.TurnResult.Outcome;
import dev.companion4j.daemon.testing.RecordingListener;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A turn whose daemon or agent dies ends with a {@link SessionDied} and a settled turn, never a
 * hang. Each test kills its own daemon.
 */
class DaemonDeathTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  private FakeModelServer model;
  private QwenDaemon daemon;
  private DaemonClient client;
  private DaemonSession session;
  private final RecordingListener events = new RecordingListener();

  @BeforeEach
  void start() throws Exception {
    model = new FakeModelServer();
    daemon = QwenDaemon.start(model);
    client =
        DaemonClient.builder().baseUrl(daemon.url()).reconnectBudget(Duration.ofSeconds(5)).build();
    session = client.createOrAttach(SessionOptions.forWorkspace(daemon.workspace().toString()));
    session.subscribe(events);
  }

  @AfterEach
  void stop() {
    session.close();
    client.close();
    daemon.close();
    model.close();
  }

  private PromptTurn holdingTurn() {
    PromptTurn turn = session.prompt("[[hold]]");
    await().atMost(LIMIT).until(() -> events.answer(turn.promptId()).contains("h2"));
    return turn;
  }

  @Test
  void agentKilledMidTurn() throws Exception {
    PromptTurn turn = holdingTurn();
    assertThat(daemon.agents()).isNotEmpty();

    daemon.agents().forEach(ProcessHandle::destroyForcibly);

    TurnResult result = turn.result().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);
    assertThat(died.reportedByDaemon()).isTrue();
    assertThat(died.reason()).isEqualTo("channel_closed");
    assertThat(died.signal()).isEqualTo("SIGKILL");
    assertThat(result.outcome()).isIn(Outcome.FAILED, Outcome.SESSION_ENDED);
    assertThat(events.awaitStatus(State.LOST, LIMIT).detail()).contains("channel_closed");
  }

  @Test
  void daemonTerminatedMidTurn() throws Exception {
    PromptTurn turn = holdingTurn();

    daemon.terminate();

    TurnResult result = turn.result().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);
    assertThat(died.reportedByDaemon()).isTrue();
    assertThat(died.reason()).isEqualTo("daemon_shutdown");
    assertThat(result.outcome()).isIn(Outcome.FAILED, Outcome.SESSION_ENDED);
    assertThat(result.message()).isNotBlank();
  }

  @Test
  void daemonKilledMidTurn() throws Exception {
    PromptTurn turn = holdingTurn();

    daemon.kill();

    TurnResult result = turn.result().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    SessionDied died = events.awaitEvent(SessionDied.class, e -> true, LIMIT);
    assertThat(died.reportedByDaemon()).as("nobody was left to report it").isFalse();
    assertThat(died.reason()).isEqualTo("daemon_unreachable");
    assertThat(died.meta().sessionId()).isEqualTo(session.sessionId());
    assertThat(result.outcome()).isEqualTo(Outcome.SESSION_ENDED);
    assertThat(events.statuses())
        .extracting(ConnectionStatus::state)
        .contains(State.RECONNECTING, State.LOST);
  }
}
