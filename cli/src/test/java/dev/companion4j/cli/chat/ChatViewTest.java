package dev.companion4j.cli.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.EventMeta;
import dev.companion4j.daemon.conversation.Conversation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The terminal chat writes what each event changed in the session's conversation. */
class ChatViewTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final AtomicInteger ended = new AtomicInteger();
  private final ChatView view =
      new ChatView(
          new PrintStream(bytes, true, StandardCharsets.UTF_8),
          Conversation.connected(null, "default"),
          "me",
          ended::incrementAndGet);
  private long eventId;

  private EventMeta meta(String promptId, String from) {
    return new EventMeta(++eventId, "s1", promptId, from, 0);
  }

  private String screen() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aTurnStreamsItsAnswerAndEndsWithDone() {
    view.onEvent(new DaemonEvent.UserMessageChunk(meta("p1", "me"), "say hello"));
    view.onEvent(new DaemonEvent.AgentThoughtChunk(meta("p1", null), "let me\nsee"));
    view.onEvent(new DaemonEvent.AgentMessageChunk(meta("p1", null), "Hel"));
    view.onEvent(new DaemonEvent.AgentMessageChunk(meta("p1", null), "lo"));
    view.onEvent(
        new DaemonEvent.ToolCall(
            meta("p1", null), "c1", "Write a.txt", "edit", "pending", List.of("/w/a.txt"), "{}"));
    view.onEvent(
        new DaemonEvent.ToolCallUpdate(
            meta("p1", null), "c1", null, "failed", List.of(), "disk full"));
    view.onEvent(new DaemonEvent.TurnComplete(meta("p1", null), "end_turn"));

    assertThat(screen())
        .as("the own prompt's echo is not written again")
        .isEqualTo(
            """
          (thinking) let me see
        Hello
          [tool] Write a.txt (edit) /w/a.txt
          [tool failed] Write a.txt: disk full
        [done]
        """);
  }

  @Test
  void theModelsTextCannotSteerTheTerminal() {
    view.onEvent(new DaemonEvent.UserMessageChunk(meta("p1", "me"), "hi"));
    view.onEvent(
        new DaemonEvent.AgentMessageChunk(
            meta("p1", null), "a\u001b]0;pwned\u0007b\u009b2Jc\rd\u001b[31me\tf\ng"));
    view.onEvent(
        new DaemonEvent.ToolCall(
            meta("p1", null), "c1", "Run\u001b[2J", "execute", "pending", List.of(), "{}"));
    view.onEvent(new DaemonEvent.TurnComplete(meta("p1", null), "end_turn"));

    assertThat(screen())
        .as("no escape, bell, C1 control or carriage return reaches the terminal")
        .doesNotContain("\u001b")
        .doesNotContain("\u0007")
        .doesNotContain("\u009b")
        .doesNotContain("\r")
        .contains("a]0;pwnedb2Jcd[31me\tf\ng")
        .contains("[tool] Run[2J (execute)");
  }

  @Test
  void anotherClientsPromptAndACancelledTurnAreSaidAndDoneIsNot() {
    view.onEvent(new DaemonEvent.UserMessageChunk(meta("p2", "other"), "from the terminal"));
    view.onEvent(new DaemonEvent.TurnComplete(meta("p2", null), "cancelled"));

    assertThat(screen())
        .isEqualTo(
            """
        [another client asked] from the terminal
        [note] Cancelled.
        """);
  }

  @Test
  void eventsTheChatDoesNotShowAreSaidOnceAndTheApprovalModeOnlyWhenItChanges() {
    view.onEvent(new DaemonEvent.Unknown(meta(null, null), "session_rewound", "{}"));
    view.onEvent(new DaemonEvent.Unknown(meta(null, null), "session_rewound", "{}"));
    view.onEvent(new DaemonEvent.ApprovalModeChanged(meta(null, null), "default", "default"));
    view.onEvent(new DaemonEvent.ApprovalModeChanged(meta(null, null), "default", "yolo"));

    assertThat(screen())
        .isEqualTo(
            """
        [note] The agent sent session_rewound events, which this view does not show.
        [approval mode] yolo: runs everything without asking
        """);
  }

  @Test
  void aPermissionRequestIsAskedAndClosedWhenDecidedElsewhereAndTheSessionsEndEndsTheChat() {
    PermissionOption once = new PermissionOption("proceed_once", "Allow", "allow_once");
    view.onEvent(
        new DaemonEvent.PermissionRequested(
            meta("p1", null),
            "r1",
            "c1",
            "Write a.txt",
            "edit",
            List.of("/w/a.txt"),
            List.of(once),
            List.of(),
            List.of()));
    assertThat(view.pendingPermission())
        .hasValueSatisfying(p -> assertThat(p.requestId()).isEqualTo("r1"));

    view.onEvent(new DaemonEvent.PermissionResolved(meta("p1", null), "r1", "proceed_once"));
    view.onEvent(
        new DaemonEvent.SessionDied(meta(null, null), "daemon_shutdown", null, null, true));

    assertThat(view.pendingPermission()).isEmpty();
    assertThat(ended).hasValue(1);
    assertThat(screen())
        .startsWith(
            """
        [permission] Write a.txt - /w/a.txt
          1) Allow [once]
        Allow? number, or o = once, a = always, d = deny:\s
        [permission request closed elsewhere]
        [error] The session ended: daemon_shutdown.""");
  }

  @Test
  void theAgentsQuestionsAreAskedOneByOneWithoutTheControlCharactersOfItsText() {
    DaemonEvent.Question pick =
        new DaemonEvent.Question(
            "Lib",
            "Which?\u001b[2J",
            List.of(
                new DaemonEvent.QuestionOption("a", "first"),
                new DaemonEvent.QuestionOption("b\u0007", "")),
            false);
    DaemonEvent.Question several =
        new DaemonEvent.Question(
            "Checks",
            "Which checks?",
            List.of(
                new DaemonEvent.QuestionOption("lint", ""),
                new DaemonEvent.QuestionOption("tests", "")),
            true);
    view.onEvent(
        new DaemonEvent.PermissionRequested(
            meta("p1", null),
            "r1",
            "c1",
            "Ask user 2 questions",
            "think",
            List.of(),
            List.of(
                new PermissionOption("proceed_once", "Submit", "allow_once"),
                new PermissionOption("cancel", "Cancel", "reject_once")),
            List.of(),
            List.of(pick, several)));
    var asked = view.pendingPermission().orElseThrow();

    assertThat(view.answerQuestion(asked, "1,2")).as("one choice only").isEmpty();
    assertThat(view.answerQuestion(asked, "2")).isEmpty();
    assertThat(view.answerQuestion(asked, "2, 1")).contains(List.of("b\u0007", "tests, lint"));
    assertThat(view.pendingPermission()).isEmpty();
    assertThat(screen())
        .doesNotContain("\u001b")
        .doesNotContain("\u0007")
        .isEqualTo(
            """
        [question] the agent asks 2 question(s)
        [question] Lib: Which?[2J
          1) a - first
          2) b
        Answer: a number, or your own words; 0 declines: Answer: a number, or your own words; 0 \
        declines:\s
        [question] Checks: Which checks?
          1) lint
          2) tests
        Answer: numbers like 1,2, or your own words; 0 declines:\s""");
  }
}
