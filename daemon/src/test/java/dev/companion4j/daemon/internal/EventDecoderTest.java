package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.AgentMessageChunk;
import dev.companion4j.daemon.DaemonEvent.ModelSwitchFailed;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PermissionRequested;
import dev.companion4j.daemon.DaemonEvent.PermissionResolved;
import dev.companion4j.daemon.DaemonEvent.Plan;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.ResyncRequired;
import dev.companion4j.daemon.DaemonEvent.SessionDied;
import dev.companion4j.daemon.DaemonEvent.ToolCallUpdate;
import dev.companion4j.daemon.DaemonEvent.TurnError;
import dev.companion4j.daemon.DaemonEvent.Unknown;
import org.junit.jupiter.api.Test;

/** Frames as the 0.24.4 daemon sent them (captured from a run against a fake model). */
class EventDecoderTest {
  private static final String SESSION = "70842cd2-9011-49a1-b63a-c97beaa2d7fc";

  private static DaemonEvent decode(String data) {
    return EventDecoder.decode("x", data, SESSION, TokenRedactor.of(null));
  }

  @Test
  void decodesAnAnswerChunkWithItsEnvelope() {
    DaemonEvent event =
        decode(
            "{\"id\":3,\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\""
                + SESSION
                + "\",\"update\":{\"content\":{\"text\":\"Hello\",\"type\":\"text\"},\"sessionUpdate\":\"agent_message_chunk\"}},"
                + "\"promptId\":\"p-1\",\"originatorClientId\":\"client_a\",\"_meta\":{\"serverTimestamp\":1795308140478}}");
    assertThat(event)
        .isEqualTo(
            new AgentMessageChunk(
                new dev.companion4j.daemon.EventMeta(3, SESSION, "p-1", "client_a", 1795308140478L),
                "Hello"));
  }

  @Test
  void decodesAPermissionRequestWithItsOptions() {
    PermissionRequested request =
        (PermissionRequested)
            decode(
                "{\"id\":8,\"v\":1,\"type\":\"permission_request\",\"promptId\":\"p-2\",\"data\":{\"requestId\":\"89a5531d\",\"sessionId\":\""
                    + SESSION
                    + "\",\"toolCall\":{\"_meta\":{\"toolName\":\"write_file\"},\"content\":[{\"newText\":\"hello file\\n\",\"oldText\":\"\",\"path\":\"/tmp/explore/ws/b.txt\",\"type\":\"diff\"}],\"kind\":\"edit\",\"locations\":[{\"path\":\"/tmp/explore/ws/b.txt\"}],\"rawInput\":{\"file_path\":\"/tmp/explore/ws/b.txt\",\"content\":\"hello file\\n\"},\"status\":\"pending\",\"title\":\"Writing to b.txt\",\"toolCallId\":\"call_1\"},\"options\":[{\"kind\":\"allow_always\",\"name\":\"Allow All Edits\",\"optionId\":\"proceed_always\"},{\"kind\":\"allow_once\",\"name\":\"Allow\",\"optionId\":\"proceed_once\"},{\"kind\":\"reject_once\",\"name\":\"Reject\",\"optionId\":\"cancel\"}]},\"originatorClientId\":\"client_1\",\"_meta\":{\"serverTimestamp\":1795308181896}}");
    assertThat(request.requestId()).isEqualTo("89a5531d");
    assertThat(request.title()).isEqualTo("Writing to b.txt");
    assertThat(request.kind()).isEqualTo("edit");
    assertThat(request.toolCallId()).isEqualTo("call_1");
    assertThat(request.locations()).containsExactly("/tmp/explore/ws/b.txt");
    assertThat(request.options())
        .containsExactly(
            new PermissionOption("proceed_always", "Allow All Edits", "allow_always"),
            new PermissionOption("proceed_once", "Allow", "allow_once"),
            new PermissionOption("cancel", "Reject", "reject_once"));
    assertThat(request.options())
        .extracting(PermissionOption::allows)
        .containsExactly(true, true, false);
    assertThat(request.meta().promptId()).isEqualTo("p-2");
  }

  @Test
  void decodesResolutionsFailuresAndDeaths() {
    PermissionResolved cancelled =
        (PermissionResolved)
            decode(
                "{\"id\":9,\"v\":1,\"type\":\"permission_resolved\",\"data\":{\"requestId\":\"89a5531d\",\"outcome\":{\"outcome\":\"cancelled\"}}}");
    assertThat(cancelled.cancelled()).isTrue();
    PermissionResolved selected =
        (PermissionResolved)
            decode(
                "{\"id\":9,\"v\":1,\"type\":\"permission_resolved\",\"data\":{\"requestId\":\"r\",\"outcome\":{\"outcome\":\"selected\",\"optionId\":\"proceed_once\"}}}");
    assertThat(selected.selectedOptionId()).isEqualTo("proceed_once");

    ToolCallUpdate failed =
        (ToolCallUpdate)
            decode(
                "{\"id\":10,\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\""
                    + SESSION
                    + "\",\"update\":{\"_meta\":{\"toolName\":\"write_file\"},\"content\":[{\"content\":{\"text\":\"Tool \\\"write_file\\\" was canceled by the user.\",\"type\":\"text\"},\"type\":\"content\"}],\"status\":\"failed\",\"toolCallId\":\"call_1\",\"sessionUpdate\":\"tool_call_update\"}},\"promptId\":\"p\"}");
    assertThat(failed.status()).isEqualTo("failed");
    assertThat(failed.text()).isEqualTo("Tool \"write_file\" was canceled by the user.");
    assertThat(failed.title()).isNull();

    ModelSwitchFailed refused =
        (ModelSwitchFailed)
            decode(
                "{\"id\":17,\"v\":1,\"type\":\"model_switch_failed\",\"data\":{\"sessionId\":\"s\",\"requestedModelId\":\"nope\",\"error\":\"Model 'nope' not found for authType 'openai'\"}}");
    assertThat(refused.requestedModelId()).isEqualTo("nope");
    assertThat(refused.meta().sessionId()).isEqualTo("s");

    TurnError error =
        (TurnError)
            decode(
                "{\"id\":92,\"v\":1,\"type\":\"turn_error\",\"data\":{\"sessionId\":\"s\",\"message\":\"agent channel closed mid-request\",\"promptId\":\"p-9\"}}");
    assertThat(error.meta().promptId()).as("taken from the payload").isEqualTo("p-9");
    assertThat(error.message()).isEqualTo("agent channel closed mid-request");

    SessionDied died =
        (SessionDied)
            decode(
                "{\"id\":30,\"v\":1,\"type\":\"session_died\",\"data\":{\"sessionId\":\"s\",\"reason\":\"channel_closed\",\"exitCode\":null,\"signalCode\":\"SIGKILL\"}}");
    assertThat(died)
        .extracting(
            SessionDied::reason,
            SessionDied::exitCode,
            SessionDied::signal,
            SessionDied::reportedByDaemon)
        .containsExactly("channel_closed", null, "SIGKILL", true);

    ResyncRequired resync =
        (ResyncRequired)
            decode(
                "{\"v\":1,\"type\":\"state_resync_required\",\"data\":{\"reason\":\"ring_evicted\",\"lastDeliveredId\":4,\"earliestAvailableId\":90}}");
    assertThat(resync.earliestAvailableId()).isEqualTo(90);
    assertThat(resync.meta().hasId()).isFalse();
  }

  @Test
  void decodesAPlan() {
    Plan plan =
        (Plan)
            decode(
                "{\"id\":5,\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"plan\",\"entries\":[{\"content\":\"read the code\",\"priority\":\"high\",\"status\":\"completed\"},{\"content\":\"fix it\",\"priority\":\"medium\",\"status\":\"pending\"}]}}}");
    assertThat(plan.entries())
        .containsExactly(
            new PlanEntry("read the code", "high", "completed"),
            new PlanEntry("fix it", "medium", "pending"));
  }

  @Test
  void decodesTheApprovalModeAndTheEndOfAReplay() {
    assertThat(
            decode(
                "{\"id\":2,\"v\":1,\"type\":\"approval_mode_changed\",\"data\":{\"sessionId\":\"s\",\"previous\":\"auto\",\"next\":\"default\",\"persisted\":false}}"))
        .isEqualTo(
            new DaemonEvent.ApprovalModeChanged(
                new dev.companion4j.daemon.EventMeta(2, "s", null, null, 0), "auto", "default"));
    assertThat(
            decode(
                "{\"v\":1,\"type\":\"replay_complete\",\"data\":{\"lastReplayedEventId\":16,\"lastEventId\":16,\"replayedCount\":8}}"))
        .isInstanceOfSatisfying(
            DaemonEvent.ReplayComplete.class, r -> assertThat(r.replayedCount()).isEqualTo(8));
  }

  @Test
  void keepsWhatItDoesNotKnowAsRawJson() {
    String usage =
        "{\"id\":7,\"v\":1,\"type\":\"session_update\",\"data\":{\"sessionId\":\"s\",\"update\":{\"size\":200000,\"used\":1,\"sessionUpdate\":\"usage_update\"}}}";
    assertThat(decode(usage))
        .isEqualTo(
            new Unknown(
                new dev.companion4j.daemon.EventMeta(7, "s", null, null, 0),
                "session_update/usage_update",
                usage));

    String rewound =
        "{\"id\":8,\"v\":1,\"type\":\"session_rewound\",\"data\":{\"sessionId\":\"s\"}}";
    assertThat(decode(rewound))
        .isInstanceOf(Unknown.class)
        .extracting(e -> ((Unknown) e).type())
        .isEqualTo("session_rewound");

    assertThat(decode("not json"))
        .isEqualTo(
            new Unknown(
                new dev.companion4j.daemon.EventMeta(0, SESSION, null, null, 0), "x", "not json"));
    assertThat(decode("{\"id\":4,\"v\":1,\"type\":\"permission_request\",\"data\":{}}"))
        .as("a typed frame missing its required fields is not half-decoded")
        .isInstanceOf(Unknown.class);
    assertThat(
            decode(
                "{\"id\":4,\"v\":1,\"type\":\"session_update\",\"data\":{\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"image\",\"data\":\"...\"}}}}"))
        .isInstanceOf(Unknown.class)
        .extracting(e -> ((Unknown) e).type())
        .isEqualTo("session_update/agent_message_chunk");
  }
}
