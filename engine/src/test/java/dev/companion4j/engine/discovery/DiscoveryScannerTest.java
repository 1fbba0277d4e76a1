package dev.companion4j.engine.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.companion4j.engine.IdeInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Reading discovery directories that other local users can write to. */
class DiscoveryScannerTest {
  private static final IdeInfo IDE = new IdeInfo("vim", "Vim");

  /** Only stops a hung scan from hanging the build; nothing here measures speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(30);

  @TempDir Path temp;

  private DiscoveryLocations locations() {
    return new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("home/.qwen"));
  }

  private List<Path> writeLive(DiscoveryLocations where) throws Exception {
    return new DiscoveryFiles(
            where, EnumSet.allOf(DiscoveryTarget.class), ProcessHandle.current().pid())
        .write(7, "/w", "t", IDE);
  }

  private static long deadPid() throws Exception {
    Process finished = new ProcessBuilder("true").start();
    finished.waitFor();
    return finished.pid();
  }

  @ParameterizedTest
  @EnumSource(DiscoveryFileKind.class)
  void aFifoUnderADiscoveryNameHangsNeitherTheScanNorTheCleanup(DiscoveryFileKind kind)
      throws Exception {
    List<Path> ours = writeLive(locations());
    Plant.fifo(kind.path(locations(), 1, 2));
    DiscoveryScanner scanner = new DiscoveryScanner(locations());

    List<DiscoveredCompanion> found = assertTimeoutPreemptively(HANG_GUARD, scanner::scan);
    List<Path> removed = assertTimeoutPreemptively(HANG_GUARD, scanner::removeStale);

    assertThat(found)
        .extracting(DiscoveredCompanion::file)
        .containsExactlyInAnyOrderElementsOf(ours);
    assertThat(removed).isEmpty();
  }

  @Test
  void aReadThatBlocksGivesUpAtItsDeadline() throws Exception {
    // What a check-then-open race would meet: a FIFO nobody writes to.
    Path fifo = Plant.fifo(temp.resolve("swapped.json"));

    assertTimeoutPreemptively(
        HANG_GUARD,
        () ->
            assertThatThrownBy(() -> DiscoveryScanner.readWithin(fifo, Duration.ofMillis(100)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not read within"));

    // Opening the other end releases the helper thread still waiting in open().
    assertTimeoutPreemptively(HANG_GUARD, () -> Files.newOutputStream(fifo).close());
  }

  @Test
  void theBackgroundCleanupRemovesStaleFilesPastAFifo() throws Exception {
    List<Path> stale =
        new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), deadPid())
            .write(7, "/w", "t", IDE);
    Plant.fifo(DiscoveryFileKind.QWEN_LOCK.path(locations(), 1, 2));

    List<Path> removed =
        new DiscoveryScanner(locations()).removeStaleInBackground(HANG_GUARD).get();

    assertThat(removed).containsExactlyInAnyOrderElementsOf(stale);
    assertThat(stale).noneMatch(Files::exists);
  }

  @Test
  void aLinkToDevZeroIsNotRead() throws Exception {
    Plant.link(DiscoveryFileKind.QWEN_LOCK.path(locations(), 1, 2), Path.of("/dev/zero"));
    Plant.link(DiscoveryFileKind.GEMINI.path(locations(), 1, 2), Path.of("/dev/zero"));

    assertThat(assertTimeoutPreemptively(HANG_GUARD, new DiscoveryScanner(locations())::scan))
        .isEmpty();
  }

  @Test
  void aLinkToAnotherDiscoveryFileIsNotFollowed() throws Exception {
    DiscoveryLocations elsewhere =
        new DiscoveryLocations(temp.resolve("elsewhere/tmp"), temp.resolve("elsewhere/.qwen"));
    Path real =
        new DiscoveryFiles(elsewhere, Set.of(DiscoveryTarget.GEMINI_CLI), deadPid())
            .write(7, "/w", "t", IDE)
            .get(0);
    Path link = Plant.link(DiscoveryFileKind.GEMINI.path(locations(), 1, 2), real);

    assertThat(new DiscoveryScanner(locations()).scan()).isEmpty();
    assertThat(new DiscoveryScanner(locations()).removeStale()).isEmpty();
    assertThat(link).isSymbolicLink();
    assertThat(real).exists();
  }

  @Test
  void theCleanupDoesNotFollowALinkedDirectory() throws Exception {
    DiscoveryLocations elsewhere =
        new DiscoveryLocations(temp.resolve("elsewhere/tmp"), temp.resolve("elsewhere/.qwen"));
    Path real =
        new DiscoveryFiles(elsewhere, Set.of(DiscoveryTarget.GEMINI_CLI), deadPid())
            .write(7, "/w", "t", IDE)
            .get(0);
    Files.createDirectories(locations().tmpDir());
    Plant.link(locations().tmpDir().resolve("gemini"), elsewhere.tmpDir().resolve("gemini"));

    assertThat(new DiscoveryScanner(locations()).removeStale()).isEmpty();
    assertThat(real).exists();
  }

  @Test
  void anOversizedFileIsNotRead() throws Exception {
    Path file = DiscoveryFileKind.GEMINI.path(locations(), ProcessHandle.current().pid(), 7);
    Files.createDirectories(file.getParent());
    Files.writeString(
        file, "{\"port\":7,\"workspacePath\":\"/w\",\"pad\":\"" + "x".repeat(70 * 1024) + "\"}");

    assertThat(new DiscoveryScanner(locations()).scan()).isEmpty();
  }

  @Test
  void aFileOfAnotherUserIsNeitherReadNorRemoved() throws Exception {
    Plant.assumeRoot();
    List<Path> files =
        new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), deadPid())
            .write(7, "/w", "t", IDE);
    Path foreign = Plant.giveToNobody(files.get(0));

    assertThat(new DiscoveryScanner(locations()).scan())
        .extracting(DiscoveredCompanion::file)
        .doesNotContain(foreign);
    assertThat(new DiscoveryScanner(locations()).removeStale())
        .hasSize(files.size() - 1)
        .doesNotContain(foreign);
    assertThat(foreign).exists();
  }

  @Test
  void aLiveProcessesLockWhosePortCannotProveTheTokenIsNeitherServingNorAlive() throws Exception {
    try (ServerSocket squatter = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answerer =
          new Thread(
              () -> {
                while (!squatter.isClosed()) {
                  try (Socket s = squatter.accept()) {
                    s.getInputStream().readNBytes(1);
                  } catch (IOException closed) {
                    // The test is over.
                  }
                }
              });
      answerer.setDaemon(true);
      answerer.start();
      // A companion that died: its pid is now another live process's (this JVM), its port another
      // program's.
      new DiscoveryFiles(
              locations(), EnumSet.allOf(DiscoveryTarget.class), ProcessHandle.current().pid())
          .write(squatter.getLocalPort(), temp.toString(), "stale token", IDE);
      DiscoveryScanner scanner = new DiscoveryScanner(locations());

      assertThat(scanner.serving(temp)).isEmpty();
      assertThat(scanner.newestServing(temp)).isEmpty();
      assertThat(scanner.reachable()).isEmpty();
      assertThat(scanner.scan())
          .hasSize(DiscoveryFileKind.values().length)
          .noneMatch(DiscoveredCompanion::alive);
    }
  }

  @Test
  void aFileIsReadForItsFieldsWhateverElseItHolds() throws Exception {
    long pid = ProcessHandle.current().pid();
    Path file = DiscoveryFileKind.GEMINI.path(locations(), pid, 7);
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        "{\"later\":{\"deep\":[[{}]]},\"port\":7,\"ppid\":\"1\",\"workspacePath\":\"/w\","
            + "\"ideInfo\":{\"name\":\"vim\",\"displayName\":{\"not\":\"text\"}},"
            + "\"authToken\":\"t\"}");

    assertThat(new DiscoveryScanner(locations()).scan())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.port()).isEqualTo(7);
              assertThat(c.workspacePath()).isEqualTo("/w");
              // Not a number: the pid comes from the file's name.
              assertThat(c.pid()).contains(pid);
              assertThat(c.ideName()).isEmpty();
            });
  }

  @Test
  void aFileThatIsNotOneJsonObjectInUtf8IsSkipped() throws Exception {
    Path file = DiscoveryFileKind.GEMINI.path(locations(), ProcessHandle.current().pid(), 7);
    Files.createDirectories(file.getParent());
    String valid = "{\"port\":7,\"workspacePath\":\"/w\",\"authToken\":\"t\"}";
    byte[] notUtf8 = valid.replace("/w", "/w?").getBytes(StandardCharsets.UTF_8);
    notUtf8[valid.indexOf("/w") + 2] = (byte) 0xff;
    for (byte[] content :
        List.of(
            notUtf8,
            (valid + " {\"port\":8}").getBytes(StandardCharsets.UTF_8),
            "[7]".getBytes(StandardCharsets.UTF_8),
            "{\"port\":\"7\",\"workspacePath\":\"/w\"}".getBytes(StandardCharsets.UTF_8))) {
      Files.write(file, content);

      assertThat(new DiscoveryScanner(locations()).scan())
          .as(new String(content, StandardCharsets.UTF_8))
          .isEmpty();
    }
  }
}
