package dev.companion4j.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.daemon.TurnResult.Outcome;
import dev.companion4j.daemon.testing.LiveDaemon;
import dev.companion4j.daemon.testing.RecordingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bearer token against a real daemon started with {@code --require-auth}. */
class DaemonAuthTest {
  private static final String TOKEN = "test-token-5f2c9a7e0b1d4c38";

  @RegisterExtension static final LiveDaemon LIVE = new LiveDaemon(TOKEN);

  @Test
  void theTokenOpensTheDaemonAndStaysOutOfSight() {
    try (DaemonClient client =
        DaemonClient.builder().baseUrl(LIVE.daemon().url()).token(TOKEN).build()) {
      assertThat(client.capabilities().supports("session_events")).isTrue();
      RecordingListener events = new RecordingListener();
      try (DaemonSession session =
          client.createOrAttach(
              SessionOptions.forWorkspace(LIVE.daemon().workspace().toString()))) {
        session.subscribe(events);
        PromptTurn turn = session.prompt("hello with a token");
        assertThat(turn.result().join().outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(events.answer(turn.promptId())).startsWith("Hello from");
        assertThat(session.toString()).doesNotContain(TOKEN);
      }
      assertThat(client.toString()).doesNotContain(TOKEN).contains("token set");
    }
  }

  @Test
  void withoutOrWithAWrongTokenTheDaemonRefuses() {
    try (DaemonClient anonymous = DaemonClient.connect(LIVE.daemon().url())) {
      assertThatThrownBy(anonymous::capabilities)
          .isInstanceOf(DaemonException.class)
          .satisfies(e -> assertThat(((DaemonException) e).status()).isEqualTo(401));
    }
    try (DaemonClient wrong =
        DaemonClient.builder().baseUrl(LIVE.daemon().url()).token("not-the-token").build()) {
      assertThatThrownBy(wrong::capabilities)
          .isInstanceOf(DaemonException.class)
          .hasMessageNotContaining("not-the-token")
          .satisfies(e -> assertThat(((DaemonException) e).status()).isEqualTo(401));
    }
  }
}
