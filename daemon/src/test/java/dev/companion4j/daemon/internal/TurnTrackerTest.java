package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.TurnComplete;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.EventMeta;
import dev.companion4j.daemon.TurnResult;
import dev.companion4j.daemon.TurnResult.Outcome;
import org.junit.jupiter.api.Test;

class TurnTrackerTest {
  private final TurnTracker turns = new TurnTracker();

  private static EventMeta meta(String promptId) {
    return new EventMeta(1, "s", promptId, null, 0);
  }

  @Test
  void aTurnThatEndedBeforeItsPromptRegisteredIsNotLost() {
    turns.onEvent(new TurnComplete(meta("p1"), "end_turn"));
    assertThat(turns.register("p1").join())
        .isEqualTo(new TurnResult("p1", Outcome.COMPLETED, "end_turn", null));
  }

  @Test
  void mapsStopReasonsAndErrors() {
    var cancelled = turns.register("p1");
    var failed = turns.register("p2");
    turns.onEvent(new TurnComplete(meta("p1"), "cancelled"));
    turns.onEvent(new TurnError(meta("p2"), "model exploded", null, null));
    assertThat(cancelled.join().outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(failed.join())
        .isEqualTo(new TurnResult("p2", Outcome.FAILED, null, "model exploded"));
  }

  @Test
  void aDeadSessionEndsOpenAndLaterTurns() {
    var open = turns.register("p1");
    turns.onEvent(new SessionDied(meta(null), "channel_closed", null, "SIGKILL", true));
    assertThat(open.join().outcome()).isEqualTo(Outcome.SESSION_ENDED);
    assertThat(open.join().message()).contains("channel_closed");
    assertThat(turns.register("p2").join().outcome()).isEqualTo(Outcome.SESSION_ENDED);
  }
}
