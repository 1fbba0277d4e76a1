package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.McpTapClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of an IDE host: host calls hop to a UI thread, which meanwhile asks the companion
 * whether it runs (a status bar repainting). No lifecycle call may hold up that UI thread while it
 * waits for the engine thread, or both wait until the host's bound runs out.
 */
class UiThreadTest {
  /** How long the host waits for its UI thread, as the host contract asks: with a bound. */
  private static final long HOST_BOUND_SECONDS = 3;

  @TempDir Path temp;
  UiHost host;
  Companion companion;

  @BeforeEach
  void build() throws Exception {
    host = new UiHost(Files.createDirectories(temp.resolve("ws")));
    companion = CompanionFixture.builder(temp, host).build();
    host.companion = companion;
  }

  @AfterEach
  void stop() {
    companion.close();
    host.ui.shutdownNow();
  }

  @Test
  void startDoesNotHoldUpTheUiThread() {
    CompletableFuture<Void> started = offUiThread(companion::start);

    await().atMost(Duration.ofSeconds(20)).until(started::isDone);
    assertThat(started).isCompleted();
    assertThat(host.uiAnswers).singleElement().isNotEqualTo(UiHost.NO_ANSWER);
  }

  @Test
  void aWorkspaceChangeDoesNotHoldUpTheUiThread() throws Exception {
    companion.start();
    host.uiAnswers.clear();
    Path second = Files.createDirectories(temp.resolve("second"));
    host.roots = List.of(host.root, second);

    CompletableFuture<Void> changed = offUiThread(companion::workspaceChanged);

    await().atMost(Duration.ofSeconds(20)).until(changed::isDone);
    assertThat(changed).isCompleted();
    assertThat(host.uiAnswers).containsExactly("running");
    assertThat(companion.workspaceRoots()).containsExactly(host.root, second);
  }

  @Test
  void stoppingWithADiffInReviewDoesNotHoldUpTheUiThread() throws Exception {
    companion.start();
    host.uiAnswers.clear();
    Path file = Files.writeString(host.root.resolve("a.txt"), "old\n");
    try (McpTapClient cli = new McpTapClient(companion.port(), companion.authToken(), "cli")) {
      assertThat(
              cli.call("openDiff", Map.of("filePath", file.toString(), "newContent", "new\n"))
                  .isError())
          .isNotEqualTo(Boolean.TRUE);

      CompletableFuture<Void> stopped = offUiThread(companion::stop);

      await().atMost(Duration.ofSeconds(20)).until(stopped::isDone);
      assertThat(stopped).isCompleted();
      await().atMost(Duration.ofSeconds(20)).until(() -> host.uiAnswers.size() == 1);
      assertThat(host.uiAnswers).singleElement().isNotEqualTo(UiHost.NO_ANSWER);
    }
  }

  /**
   * A lifecycle call from a background thread, as an IDE makes it (NetBeans: its request
   * processor).
   */
  private static CompletableFuture<Void> offUiThread(ThrowingCall call) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            call.run();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private interface ThrowingCall {
    void run() throws Exception;
  }

  /** Answers on its UI thread, which repaints a status from {@link Companion#isRunning()} first. */
  static final class UiHost implements CompanionHost {
    static final String NO_ANSWER = "the UI thread did not answer within the host's bound";
    final ExecutorService ui = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-ui"));
    final List<String> uiAnswers = new CopyOnWriteArrayList<>();
    final Path root;
    volatile Companion companion;
    volatile List<Path> roots;

    UiHost(Path root) {
      this.root = root;
      roots = List.of(root);
    }

    @Override
    public IdeInfo ideInfo() {
      return new IdeInfo("testide", "Test IDE");
    }

    @Override
    public List<Path> workspaceRoots() {
      onUiThread();
      return roots;
    }

    @Override
    public void showDiff(PendingDiff diff, DiffReview review) {
      // Shown without the UI thread, so that only the call under test meets it.
    }

    @Override
    public Optional<String> closeDiff(PendingDiff diff) {
      onUiThread();
      return Optional.empty();
    }

    private void onUiThread() {
      Companion c = companion;
      if (c == null) {
        return;
      }
      try {
        uiAnswers.add(
            ui.submit(() -> c.isRunning() ? "running" : "not running")
                .get(HOST_BOUND_SECONDS, TimeUnit.SECONDS));
      } catch (TimeoutException e) {
        uiAnswers.add(NO_ANSWER);
      } catch (Exception e) {
        uiAnswers.add(e.toString());
      }
    }
  }
}
