package dev.companion4j.daemon.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.EventMeta;
import dev.companion4j.daemon.conversation.Conversation.State;
import dev.companion4j.daemon.conversation.Entry.Level;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one mapping from daemon events to what a chat view shows. */
class ConversationsTest {
  private long eventId;
  private Conversation c = Conversation.connected("qwen3-coder", "default");

  @Test
  void chunksOfOnePromptGrowOneEntryAndAThoughtEndsWhenTheAnswerBegins() {
    apply(new DaemonEvent.UserMessageChunk(meta("p1"), "Explain "));
    apply(new DaemonEvent.UserMessageChunk(meta("p1"), "this"));
    apply(new DaemonEvent.AgentThoughtChunk(meta("p1"), "Let me "));
    apply(new DaemonEvent.AgentThoughtChunk(meta("p1"), "look."));
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "It "));
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "sorts."));

    assertThat(c.entries())
        .containsExactly(
            new Entry.UserMessage("e1", "p1", "other", "Explain this"),
            new Entry.Thought("e2", "p1", "Let me look.", false),
            new Entry.AssistantMessage("e3", "p1", "It sorts.", true));
    assertThat(c.turnRunning()).isTrue();

    apply(new DaemonEvent.TurnComplete(meta("p1"), "end_turn"));
    assertThat(c.entries().get(2))
        .isEqualTo(new Entry.AssistantMessage("e3", "p1", "It sorts.", false));
    assertThat(c.turnRunning()).isFalse();
  }

  @Test
  void anotherPromptsAnswerIsAnEntryOfItsOwn() {
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "one"));
    apply(new DaemonEvent.AgentMessageChunk(meta("p2"), "two"));

    assertThat(c.entries()).extracting(Entry::id).containsExactly("e1", "e2");
  }

  @Test
  void aToolCallIsUpdatedInPlaceAndAReplayDoesNotRepeatIt() {
    apply(
        new DaemonEvent.ToolCall(
            meta("p1"),
            "call-1",
            "Write notes.txt",
            "edit",
            "pending",
            List.of("/w/notes.txt"),
            "{\"file_path\":\"/w/notes.txt\"}"));
    apply(
        new DaemonEvent.ToolCallUpdate(meta("p1"), "call-1", null, "in_progress", List.of(), null));
    apply(
        new DaemonEvent.ToolCallUpdate(
            meta("p1"), "call-1", null, "failed", List.of(), "disk full"));
    apply(
        new DaemonEvent.ToolCall(
            meta("p1"),
            "call-1",
            "Write notes.txt",
            "edit",
            "failed",
            List.of("/w/notes.txt"),
            "{}"));

    assertThat(c.entries()).hasSize(1);
    Entry.ToolCall call = (Entry.ToolCall) c.entries().get(0);
    assertThat(call.status()).isEqualTo("failed");
    assertThat(call.kind()).isEqualTo("edit");
  }

  @Test
  void anUpdateForACallNeverAnnouncedStillShows() {
    apply(
        new DaemonEvent.ToolCallUpdate(
            meta("p1"), "call-9", "Run tests", "completed", List.of(), "ok"));

    assertThat(c.entries())
        .singleElement()
        .isInstanceOfSatisfying(
            Entry.ToolCall.class,
            call -> {
              assertThat(call.title()).isEqualTo("Run tests");
              assertThat(call.text()).isEqualTo("ok");
            });
  }

  @Test
  void aPermissionWaitsUntilItIsResolvedHereOrElsewhere() {
    List<PermissionOption> options =
        List.of(
            new PermissionOption("allow", "Allow", "allow_once"),
            new PermissionOption("deny", "Deny", "reject_once"));
    apply(
        new DaemonEvent.PermissionRequested(
            meta("p1"),
            "r1",
            "call-1",
            "Write notes.txt",
            "edit",
            List.of("/w/notes.txt"),
            options,
            List.of(new DaemonEvent.FileDiff("/w/notes.txt", "old\n", "new\n")),
            List.of()));
    apply(
        new DaemonEvent.PermissionRequested(
            meta("p1"),
            "r2",
            "call-2",
            "Run ls",
            "execute",
            List.of(),
            options,
            List.of(),
            List.of()));

    assertThat(c.permissions())
        .extracting(Conversation.PendingPermission::requestId)
        .containsExactly("r1", "r2");
    assertThat(c.permissions().get(0).options()).isEqualTo(options);
    assertThat(c.permissions().get(0).diffs())
        .containsExactly(new DaemonEvent.FileDiff("/w/notes.txt", "old\n", "new\n"));

    apply(new DaemonEvent.PermissionResolved(meta("p1"), "r1", "allow"));
    assertThat(c.permissions())
        .extracting(Conversation.PendingPermission::requestId)
        .containsExactly("r2");
  }

  @Test
  void theModelFollowsTheDaemonAndARefusedSwitchIsSaid() {
    apply(new DaemonEvent.ModelSwitched(meta(null), "qwen3-max"));
    apply(new DaemonEvent.ModelSwitchFailed(meta(null), "no-such-model", "unknown model"));

    assertThat(c.modelId()).isEqualTo("qwen3-max");
    assertThat(c.entries())
        .singleElement()
        .isEqualTo(
            new Entry.Notice(
                "e1",
                Level.WARNING,
                "The model stays qwen3-max: switching to no-such-model failed: unknown model"));
  }

  @Test
  void theModelNameIsTheOfferedIdWithoutTheAuthTypeTheDaemonAddsOnceSwitched() {
    apply(new DaemonEvent.ModelSwitched(meta(null), "fake-model-2(openai)"));

    assertThat(c.modelId()).isEqualTo("fake-model-2(openai)");
    assertThat(c.modelName()).isEqualTo("fake-model-2");
  }

  @Test
  void aCancelledOrFailedTurnEndsWithANotice() {
    c = Conversations.promptSent(c);
    apply(new DaemonEvent.TurnComplete(meta("p1"), "cancelled"));
    assertThat(c.turnRunning()).isFalse();
    assertThat(last()).isEqualTo(new Entry.Notice("e1", Level.INFO, "Cancelled."));

    c = Conversations.promptSent(c);
    apply(new DaemonEvent.TurnError(meta("p2"), "rate limited", "429", "api"));
    assertThat(c.turnRunning()).isFalse();
    assertThat(last())
        .isEqualTo(new Entry.Notice("e2", Level.ERROR, "The turn failed: rate limited"));
  }

  @Test
  void aDeadSessionEndsItsStreamsAndItsRequestsAndOffersToReconnect() {
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "half"));
    apply(
        new DaemonEvent.PermissionRequested(
            meta("p1"),
            "r1",
            "call-1",
            "Write",
            "edit",
            List.of(),
            List.of(),
            List.of(),
            List.of()));
    apply(new DaemonEvent.SessionDied(meta(null), "daemon_unreachable", null, null, false));

    assertThat(c.state()).isEqualTo(State.DIED);
    assertThat(c.stateReason()).isEqualTo("daemon_unreachable");
    assertThat(c.permissions()).isEmpty();
    assertThat(c.turnRunning()).isFalse();
    assertThat(c.entries().get(0)).isEqualTo(new Entry.AssistantMessage("e1", "p1", "half", false));
    assertThat(last())
        .isEqualTo(
            new Entry.Notice(
                "e2", Level.ERROR, "The session ended: daemon_unreachable. Reconnect to go on."));
    assertThat(Conversations.reconnecting(c, true))
        .as("only a live session reconnects")
        .isSameAs(c);
  }

  @Test
  void aClosedSessionSaysWhy() {
    apply(new DaemonEvent.SessionClosed(meta(null), "deleted", "other-client"));

    assertThat(c.state()).isEqualTo(State.CLOSED);
    assertThat(last())
        .isEqualTo(new Entry.Notice("e1", Level.INFO, "The session was closed: deleted."));
  }

  @Test
  void reconnectingShowsAndClears() {
    c = Conversations.reconnecting(c, true);
    assertThat(c.state()).isEqualTo(State.RECONNECTING);
    c = Conversations.reconnecting(c, false);
    assertThat(c.state()).isEqualTo(State.CONNECTED);
  }

  @Test
  void lostEventsAndStreamErrorsAreNotHidden() {
    apply(new DaemonEvent.ResyncRequired(meta(null), "evicted", 10, 40));
    apply(new DaemonEvent.StreamError(meta(null), "upstream closed", "io"));

    assertThat(c.entries())
        .extracting(e -> ((Entry.Notice) e).text())
        .containsExactly(
            "Events 11 to 39 were lost while reconnecting; the daemon no longer holds them. What follows is complete.",
            "The daemon's event stream failed: upstream closed");
  }

  @Test
  void eachKindOfEventThisViewCannotShowIsSaidOnce() {
    apply(new DaemonEvent.Unknown(meta(null), "session_rewound", "{}"));
    apply(new DaemonEvent.Unknown(meta(null), "session_rewound", "{}"));
    apply(new DaemonEvent.Unknown(meta(null), "session_update/something_new", "{}"));

    assertThat(c.entries())
        .extracting(e -> ((Entry.Notice) e).text())
        .containsExactly(
            "The agent sent session_rewound events, which this view does not show.",
            "The agent sent session_update/something_new events, which this view does not show.");
  }

  @Test
  void theCliSlashCommandsAndTokenCountsAreLeftOutWithoutANoticeAndDoNotSplitAnAnswer() {
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "one "));
    apply(new DaemonEvent.Unknown(meta(null), "session_update/usage_update", "{}"));
    apply(new DaemonEvent.Unknown(meta(null), "session_update/available_commands_update", "{}"));
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "answer"));

    assertThat(c.entries())
        .containsExactly(new Entry.AssistantMessage("e1", "p1", "one answer", true));
  }

  @Test
  void aNoticeInTheMiddleOfAnAnswerNeitherSplitsItNorKeepsItStreaming() {
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "one "));
    apply(new DaemonEvent.Unknown(meta(null), "session_update/something_new", "{}"));
    apply(new DaemonEvent.AgentMessageChunk(meta("p1"), "answer"));
    apply(new DaemonEvent.TurnComplete(meta("p1"), "end_turn"));

    assertThat(c.entries().get(0))
        .isEqualTo(new Entry.AssistantMessage("e1", "p1", "one answer", false));
    assertThat(c.entries()).hasSize(2);
  }

  @Test
  void theApprovalModeFollowsTheDaemonAndAReplaysEndChangesNothing() {
    apply(new DaemonEvent.ApprovalModeChanged(meta(null), "default", "yolo"));
    Conversation before = c;
    apply(new DaemonEvent.ReplayComplete(meta(null), 12));

    assertThat(c.approvalMode()).isEqualTo("yolo");
    assertThat(c).isSameAs(before);
  }

  @Test
  void aPromptFromAnotherClientStartsATurnHere() {
    apply(new DaemonEvent.UserMessageChunk(meta("p7"), "from the terminal"));

    assertThat(c.turnRunning()).isTrue();
  }

  private void apply(DaemonEvent event) {
    c = Conversations.apply(c, event);
  }

  private Entry last() {
    return c.entries().get(c.entries().size() - 1);
  }

  private EventMeta meta(String promptId) {
    return new EventMeta(++eventId, "s1", promptId, "other", 0);
  }
}
