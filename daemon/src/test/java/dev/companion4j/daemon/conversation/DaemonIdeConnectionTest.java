package dev.companion4j.daemon.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import dev.companion4j.daemon.testing.LiveDaemon;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The adapter against one real {@code qwen serve} whose model is a scripted fake. */
class DaemonIdeConnectionTest {
  private static final Duration TURN = Duration.ofSeconds(60);

  @RegisterExtension static final LiveDaemon LIVE = new LiveDaemon();

  private final List<Conversation> heard = new CopyOnWriteArrayList<>();
  private final List<DaemonIdeConnection> connections = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeConnections() {
    connections.forEach(DaemonIdeConnection::close);
  }

  @Test
  void aPromptStreamsIntoTheConversationWithItsThoughtApart() {
    DaemonIdeConnection c = open(newThread());

    c.prompt("[[think]] and answer");

    Conversation done = awaitConversation(c, x -> !x.turnRunning() && x.entries().size() >= 3);
    assertThat(done.entries()).hasSize(3);
    assertThat(done.entries().get(0))
        .isInstanceOfSatisfying(
            Entry.UserMessage.class, u -> assertThat(u.text()).isEqualTo("[[think]] and answer"));
    assertThat(done.entries().get(1))
        .isInstanceOfSatisfying(
            Entry.Thought.class, t -> assertThat(t.text()).contains("pondering the question"));
    assertThat(done.entries().get(2))
        .isInstanceOfSatisfying(
            Entry.AssistantMessage.class,
            m -> {
              assertThat(m.text()).isEqualTo("thought done");
              assertThat(m.streaming()).isFalse();
            });
    await()
        .atMost(TURN)
        .until(() -> !heard.isEmpty() && heard.get(heard.size() - 1).equals(c.conversation()));
    assertThat(heard)
        .as("the listener hears each step once, in order")
        .extracting(Conversation::nextEntry)
        .isSorted();
  }

  @Test
  void aSessionItCreatesAsksBeforeWritingAndAllowWrites() throws Exception {
    DaemonIdeConnection c = open(newThread());
    Path file = LIVE.daemon().workspace().resolve("adapter-allowed.txt");

    c.prompt("please [[write " + file + "]]");

    PendingPermission request =
        awaitConversation(c, x -> !x.permissions().isEmpty()).permissions().get(0);
    assertThat(request.locations()).containsExactly(file.toString());
    assertThat(file).doesNotExist();
    assertThat(c.answer(request.requestId(), option(request, "allow_once"))).isTrue();

    Conversation done =
        awaitConversation(
            c,
            x ->
                !x.turnRunning()
                    && x.permissions().isEmpty()
                    && x.entries().stream()
                        .anyMatch(
                            e -> e instanceof Entry.ToolCall t && "completed".equals(t.status())));
    assertThat(Files.readString(file)).isEqualTo(FakeModelServer.FILE_CONTENT);
    assertThat(done.entries())
        .filteredOn(Entry.ToolCall.class::isInstance)
        .singleElement()
        .isInstanceOfSatisfying(Entry.ToolCall.class, t -> assertThat(t.kind()).isEqualTo("edit"));
  }

  @Test
  void denyLeavesTheFileAlone() {
    DaemonIdeConnection c = open(newThread());
    Path file = LIVE.daemon().workspace().resolve("adapter-denied.txt");

    c.prompt("please [[write " + file + "]]");
    PendingPermission request =
        awaitConversation(c, x -> !x.permissions().isEmpty()).permissions().get(0);
    assertThat(c.answer(request.requestId(), option(request, "reject_once"))).isTrue();

    awaitConversation(c, x -> !x.turnRunning() && x.permissions().isEmpty());
    assertThat(file).doesNotExist();
  }

  @Test
  void attachingToASharedSessionReplaysWhatWasSaid() {
    SessionOptions shared = SessionOptions.forWorkspace(LIVE.daemon().workspace().toString());
    DaemonIdeConnection first = open(shared);
    first.prompt("say hello");
    awaitConversation(first, x -> !x.turnRunning() && x.entries().size() >= 2);

    DaemonIdeConnection second = open(shared);

    assertThat(second.sessionId()).isEqualTo(first.sessionId());
    Conversation replayed =
        awaitConversation(
            second,
            x ->
                x.entries().stream()
                    .anyMatch(
                        e ->
                            e instanceof Entry.AssistantMessage m
                                && m.text().equals("Hello from " + QwenDaemon.MODEL)));
    assertThat(replayed.entries().get(0))
        .isInstanceOfSatisfying(
            Entry.UserMessage.class, u -> assertThat(u.text()).isEqualTo("say hello"));
  }

  @Test
  void theLocalityNamesTheDaemonAndItsWorkspace() {
    DaemonIdeConnection c = open(newThread());

    // By host and port: the address itself stays with the client.
    assertThat(c.locality())
        .isEqualTo(
            new DaemonIdeConnection.Locality(
                LIVE.daemon().url().replaceFirst("^http://", ""),
                LIVE.daemon().workspace().toString()));
  }

  private DaemonIdeConnection open(SessionOptions options) {
    DaemonIdeConnection c = DaemonIdeConnection.open(LIVE.client(), options, heard::add);
    connections.add(c);
    return c;
  }

  private SessionOptions newThread() {
    return SessionOptions.forWorkspace(LIVE.daemon().workspace().toString()).asNewThread();
  }

  private static Conversation awaitConversation(
      DaemonIdeConnection c, java.util.function.Predicate<Conversation> done) {
    await().atMost(TURN).until(() -> done.test(c.conversation()));
    return c.conversation();
  }

  private static String option(PendingPermission request, String kind) {
    return request.options().stream()
        .filter(o -> o.kind().equals(kind))
        .map(PermissionOption::optionId)
        .findFirst()
        .orElseThrow();
  }
}
