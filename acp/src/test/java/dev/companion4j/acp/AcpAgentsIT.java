package dev.companion4j.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import dev.companion4j.daemon.conversation.Entry;
import dev.companion4j.testkit.AskUserQuestion;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real {@code qwen --acp} and {@code gemini --acp}, each in a home of its own with default
 * settings, against the fake model: what a chat user does, through {@link AcpIdeConnection}.
 */
class AcpAgentsIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private FakeModelServer model;
  private HeadlessCli cli;
  private final List<AcpIdeConnection> connections = new CopyOnWriteArrayList<>();
  private final List<Conversation> seen = new CopyOnWriteArrayList<>();
  private final Set<String> commands = ConcurrentHashMap.newKeySet();

  @AfterEach
  void stop() {
    connections.forEach(AcpIdeConnection::close);
    if (model != null) {
      model.close();
    }
  }

  private AcpIdeConnection open(Kind kind, AcpIdeConnection.Setup setup) throws Exception {
    if (cli == null) {
      model = new FakeModelServer();
      cli = new HeadlessCli(kind, CliEnvironment.in(dir), model);
      if (kind == Kind.GEMINI) {
        // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
        cli.trustTheWorkspace();
      }
    }
    AcpAgent agent =
        new AcpAgent(
            List.of("node", kind.executable().toString(), "--acp"),
            cli.env.workspace(),
            cli.variables());
    AcpIdeConnection connection =
        AcpIdeConnection.open(
            agent,
            setup,
            new AcpIdeConnection.Listener() {
              @Override
              public void changed(Conversation conversation) {
                seen.add(conversation);
              }

              @Override
              public void commandsChanged(List<AcpIdeConnection.Command> listed) {
                listed.forEach(c -> commands.add(c.name()));
              }
            });
    connections.add(connection);
    return connection;
  }

  private AcpIdeConnection open(Kind kind) throws Exception {
    return open(kind, AcpIdeConnection.Setup.in(dirWorkspace()));
  }

  private Path dirWorkspace() {
    return dir.resolve("workspace");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPromptStreamsTheAnswer(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);

    assertThat(c.prompt("[[count 40]]").get(LIMIT.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo("end_turn");

    assertThat(lastAnswer(c.conversation())).contains("c0000").contains("c0039");
    // Streamed: the listener saw the answer while it was still growing.
    assertThat(
            seen.stream()
                .map(AcpAgentsIT::lastAnswer)
                .filter(t -> t.contains("c0000") && !t.contains("c0039"))
                .findAny())
        .isPresent();
    assertThat(c.conversation().turnRunning()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriteAsksRejectLeavesTheFileAndAllowWritesIt(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);
    Path file = target(kind, "asked.txt");
    String before = contentOf(file);

    CompletableFuture<String> rejected = c.prompt("[[write " + file + "]]");
    PendingPermission first = awaitPermission(c);
    assertThat(c.answer(first.requestId(), option(first, "reject").optionId())).isTrue();
    assertThat(c.answer(first.requestId(), option(first, "allow").optionId()))
        .as("a second answer")
        .isFalse();
    rejected.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(contentOf(file)).isEqualTo(before);

    CompletableFuture<String> allowed = c.prompt("[[write " + file + "]]");
    PendingPermission second = awaitPermission(c);
    c.answer(second.requestId(), option(second, "allow_once").optionId());
    allowed.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(Files.readString(file)).isEqualTo(FakeModelServer.FILE_CONTENT);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void cancelStopsATurn(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);

    CompletableFuture<String> turn = c.prompt("[[hold]]");
    await().atMost(LIMIT).until(() -> !lastAnswer(c.conversation()).isEmpty());
    c.cancel();

    assertThat(turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("cancelled");
    assertThat(c.conversation().turnRunning()).isFalse();

    assertThat(c.prompt("say hello").get(LIMIT.toSeconds(), TimeUnit.SECONDS))
        .as("the agent answers the next prompt")
        .isEqualTo("end_turn");
    assertThat(lastAnswer(c.conversation())).startsWith("Hello from");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aModeThatAllowsEditsWritesWithoutAsking(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);
    AcpIdeConnection.Mode edits =
        c.modes().stream()
            .filter(m -> m.id().equals("auto-edit") || m.id().equals("autoEdit"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no edit mode in " + c.modes()));
    Path file = target(kind, "unasked.txt");

    c.setMode(edits.id());
    assertThat(c.conversation().approvalMode()).isEqualTo(edits.id());
    c.prompt("[[write " + file + "]]").get(LIMIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(Files.readString(file)).isEqualTo(FakeModelServer.FILE_CONTENT);
    assertThat(seen).allMatch(s -> s.permissions().isEmpty());
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aModelSwitchShows(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);
    assertThat(c.models()).isNotEmpty();
    String other = c.models().get(c.models().size() - 1).id();

    c.setModel(other);

    assertThat(c.conversation().modelId()).isEqualTo(other);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theAgentsSlashCommandsArrive(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);

    c.prompt("hello").get(LIMIT.toSeconds(), TimeUnit.SECONDS);

    await().atMost(LIMIT).until(() -> !commands.isEmpty());
    assertThat(c.commands()).isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aSlashCommandRunsInTheAgent(Kind kind) throws Exception {
    AcpIdeConnection c = open(kind);
    String command = kind == Kind.QWEN ? "/status" : "/about";

    assertThat(c.prompt(command).get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("end_turn");

    assertThat(lastAnswer(c.conversation()))
        .as("the agent ran %s itself: its answer names its version", command)
        .contains(kind == Kind.QWEN ? "Qwen Code v0.24.4" : "Version: 0.61.0");
  }

  /**
   * An earlier session loads by its id, its history replayed. Qwen Code lists it first; Gemini CLI
   * lists none, so its id is the one the chat had.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void anEarlierSessionLoadsAndReplaysItsHistory(Kind kind) throws Exception {
    AcpIdeConnection first = open(kind);
    Instant begun = Instant.now();
    first.prompt("remember this").get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    String id = first.sessionId();
    first.close();

    AcpIdeConnection other = open(kind);
    if (kind == Kind.QWEN) {
      SessionSummary listed =
          other.sessions().stream()
              .filter(s -> s.sessionId().equals(id))
              .findFirst()
              .orElseThrow(() -> new AssertionError(id + " not in " + other.sessions()));
      assertThat(listed.displayName()).isEqualTo("remember this");
      assertThat(listed.updatedAt()).isNotBlank();
    } else {
      assertThatThrownBy(other::sessions)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("does not list its sessions");
      HeadlessCli.awaitTheMinuteAfter(begun);
    }
    other.close();

    AcpIdeConnection again = open(kind, AcpIdeConnection.Setup.in(dirWorkspace()).loading(id));

    await()
        .atMost(LIMIT)
        .untilAsserted(
            () ->
                assertThat(again.conversation().entries())
                    .anyMatch(
                        e -> e instanceof Entry.UserMessage u && u.text().equals("remember this"))
                    .anyMatch(
                        e ->
                            e instanceof Entry.AssistantMessage a
                                && a.text().contains("Hello from")));
    assertThat(again.conversation().turnRunning()).isFalse();
    assertThat(again.conversation().approvalMode())
        .as("a loaded session asks before edits, as a new one")
        .isEqualTo("default");
    assertThat(again.conversation().entries())
        .as("the replayed history is complete")
        .noneMatch(e -> e instanceof Entry.AssistantMessage a && a.streaming());
  }

  @Test
  void qwenCodesQuestionIsAskedAndTheAnswersReachTheTool() throws Exception {
    AcpIdeConnection c = open(Kind.QWEN);

    CompletableFuture<String> turn = c.prompt(AskUserQuestion.PROMPT);
    PendingPermission asked = awaitPermission(c);
    assertThat(asked.questions()).hasSize(2);
    assertThat(asked.questions().get(0).question()).isEqualTo(AskUserQuestion.FIRST);
    assertThat(asked.questions().get(0).options())
        .extracting(DaemonEvent.QuestionOption::label)
        .containsExactly("Joda", "java.time");
    assertThat(asked.questions().get(1).multiSelect()).isTrue();
    assertThatThrownBy(() -> c.answer(asked.requestId(), option(asked, "allow").optionId()))
        .as("submitting with no answers")
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> c.answerQuestions(asked.requestId(), List.of("java.time")))
        .as("a question left unanswered")
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(c.answerQuestions(asked.requestId(), List.of("java.time", "lint, my own"))).isTrue();
    assertThat(c.answerQuestions(asked.requestId(), List.of("Joda", "tests")))
        .as("a second answer")
        .isFalse();
    turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lastAnswer(c.conversation()))
        .contains("**Library**: java.time")
        .contains("**Checks**: lint, my own");
  }

  @Test
  void qwenCodesQuestionDeclinedEndsTheTurnWithoutAnswers() throws Exception {
    AcpIdeConnection c = open(Kind.QWEN);

    CompletableFuture<String> turn = c.prompt(AskUserQuestion.PROMPT);
    PendingPermission asked = awaitPermission(c);
    assertThat(c.answer(asked.requestId(), option(asked, "reject").optionId())).isTrue();
    turn.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(c.conversation().permissions()).isEmpty();
    // Qwen Code ends the turn on a declined question: the model hears no answers.
    assertThat(c.conversation().entries())
        .as("the conversation")
        .filteredOn(Entry.ToolCall.class::isInstance)
        .extracting(e -> ((Entry.ToolCall) e).status())
        .containsExactly("failed");
    assertThat(model.requests()).noneMatch(r -> r.lastText().contains("User has provided"));
  }

  @Test
  void geminiClisAskUserIsNotOfferedToTheModelInAcpMode() throws Exception {
    AcpIdeConnection c = open(Kind.GEMINI);

    c.prompt("say hello").get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    List<String> tools =
        model.requests().stream().flatMap(r -> r.toolNames().stream()).distinct().toList();
    assertThat(tools).contains("read_file").doesNotContain("ask_user");
  }

  /**
   * The file a write goes to: a new one for Qwen Code, which overwrites only files it read first,
   * an existing one for Gemini CLI 0.61, which cannot create one through the client (see
   * docs/chat.md).
   */
  private Path target(Kind kind, String name) throws Exception {
    Path file = dirWorkspace().resolve(name);
    return kind == Kind.GEMINI ? Files.writeString(file, "before\n") : file;
  }

  private static String contentOf(Path file) throws Exception {
    return Files.exists(file) ? Files.readString(file) : "(none)";
  }

  private PendingPermission awaitPermission(AcpIdeConnection c) {
    await()
        .atMost(LIMIT)
        .untilAsserted(
            () ->
                assertThat(c.conversation().permissions())
                    .as("permissions of %s", c.conversation().entries())
                    .isNotEmpty());
    return c.conversation().permissions().get(0);
  }

  private static PermissionOption option(PendingPermission p, String kindPrefix) {
    return p.options().stream()
        .filter(o -> o.kind().startsWith(kindPrefix))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kindPrefix + " option in " + p.options()));
  }

  private static String lastAnswer(Conversation c) {
    for (int i = c.entries().size() - 1; i >= 0; i--) {
      if (c.entries().get(i) instanceof Entry.AssistantMessage a) {
        return a.text();
      }
    }
    return "";
  }
}
