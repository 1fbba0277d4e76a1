package dev.companion4j.engine.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.IdeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class DiscoveryFilesTest {
  private static final IdeInfo IDE = new IdeInfo("vim", "Vim");
  private static final JsonMapper JSON = JsonMapper.shared();
  @TempDir Path temp;

  private DiscoveryLocations locations() {
    return new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("home/.qwen"));
  }

  @Test
  void writesEveryGenerationOwnerOnlyWithTheSameContent() throws Exception {
    DiscoveryFiles files =
        new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), 4242);

    List<Path> written = files.write(5555, "/a:/b", "secret", IDE);

    assertThat(written)
        .containsExactlyInAnyOrder(
            temp.resolve("home/.qwen/ide/5555.lock"),
            temp.resolve("tmp/qwen/ide/qwen-code-ide-server-4242-5555.json"),
            temp.resolve("tmp/qwen-code-ide-server-4242.json"),
            temp.resolve("tmp/gemini/ide/gemini-ide-server-4242-5555.json"));
    for (Path file : written) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
      JsonNode json = JSON.readTree(Files.readString(file));
      assertThat(json.path("port").asInt()).isEqualTo(5555);
      assertThat(json.path("workspacePath").asString()).isEqualTo("/a:/b");
      assertThat(json.path("authToken").asString()).isEqualTo("secret");
      assertThat(json.path("ppid").asLong()).isEqualTo(4242);
      assertThat(json.path("ideInfo").path("displayName").asString()).isEqualTo("Vim");
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(temp.resolve("tmp/gemini/ide"))))
        .isEqualTo("rwx------");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(temp.resolve("home/.qwen"))))
        .isEqualTo("rwx------");
    try (var leftovers = Files.list(temp.resolve("tmp/gemini/ide"))) {
      assertThat(leftovers.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    }
  }

  @Test
  void namesThePidKeyedFilesOfOlderClisAfterEachAncestorTooWithTheCompanionAsOwner()
      throws Exception {
    DiscoveryFiles files =
        new DiscoveryFiles(
            locations(), EnumSet.allOf(DiscoveryTarget.class), 4242, List.of(300L, 20L));

    List<Path> written = files.write(5555, "/w", "secret", IDE);

    assertThat(written)
        .containsExactlyInAnyOrder(
            temp.resolve("home/.qwen/ide/5555.lock"),
            temp.resolve("tmp/qwen/ide/qwen-code-ide-server-4242-5555.json"),
            temp.resolve("tmp/qwen-code-ide-server-4242.json"),
            temp.resolve("tmp/qwen-code-ide-server-300.json"),
            temp.resolve("tmp/qwen-code-ide-server-20.json"),
            temp.resolve("tmp/gemini/ide/gemini-ide-server-4242-5555.json"),
            temp.resolve("tmp/gemini/ide/gemini-ide-server-300-5555.json"),
            temp.resolve("tmp/gemini/ide/gemini-ide-server-20-5555.json"));
    assertThat(written)
        .allSatisfy(
            file ->
                assertThat(JSON.readTree(Files.readString(file)).path("ppid").asLong())
                    .isEqualTo(4242));
    assertThat(new DiscoveryScanner(locations()).scan())
        .as("every file names the companion's process as its owner")
        .hasSize(8)
        .allSatisfy(c -> assertThat(c.pid()).hasValue(4242L));
  }

  @Test
  void leavesAFileNamedAfterASharedAncestorToTheCompanionThatTookItOver() throws Exception {
    DiscoveryFiles first =
        new DiscoveryFiles(locations(), Set.of(DiscoveryTarget.QWEN_CODE), 4242, List.of(300L));
    first.write(1111, "/one", "t1", IDE);
    Path shared = temp.resolve("tmp/qwen-code-ide-server-300.json");
    // What a companion in another process beside this one writes over it.
    String other = "{\"port\":2222,\"workspacePath\":\"/two\",\"authToken\":\"t2\",\"ppid\":5151}";
    Files.writeString(shared, other);

    first.removeAll();

    assertThat(shared).hasContent(other);
    assertThat(temp.resolve("tmp/qwen-code-ide-server-4242.json")).doesNotExist();
    assertThat(temp.resolve("home/.qwen/ide/1111.lock")).doesNotExist();
  }

  @Test
  void theAncestorsOfAProcessStopBeforeInit() throws Exception {
    long self = ProcessHandle.current().pid();
    Process child = new ProcessBuilder("sleep", "30").start();
    try {
      List<Long> ancestors = DiscoveryFiles.ancestorsOf(child.pid());
      assertThat(ancestors).startsWith(self).doesNotContain(1L, child.pid());
    } finally {
      child.destroy();
    }
  }

  @Test
  void writesOnlyTheTargetsAskedFor() throws Exception {
    DiscoveryFiles files = new DiscoveryFiles(locations(), Set.of(DiscoveryTarget.GEMINI_CLI), 1);

    assertThat(files.write(1, "/w", "t", IDE))
        .containsExactly(temp.resolve("tmp/gemini/ide/gemini-ide-server-1-1.json"));
  }

  @Test
  void rewritesInPlaceAndRemovesEverything() throws Exception {
    DiscoveryFiles files = new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), 7);
    files.write(9, "/old", "t", IDE);

    List<Path> again = files.write(9, "/new", "t", IDE);
    assertThat(JSON.readTree(Files.readString(again.get(0))).path("workspacePath").asString())
        .isEqualTo("/new");

    files.removeAll();
    assertThat(again).noneMatch(Files::exists);
  }

  @Test
  void removesOnlyTheFilesOfDeadProcesses() throws Exception {
    Process finished = new ProcessBuilder("true").start();
    finished.waitFor();
    long deadPid = finished.pid();
    long livePid = ProcessHandle.current().pid();
    new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), deadPid)
        .write(1111, "/w", "t", IDE);
    DiscoveryFiles live =
        new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), livePid);
    List<Path> liveFiles = live.write(2222, "/w", "t", IDE);
    Path foreign = Files.writeString(temp.resolve("tmp/gemini/ide/unrelated.json"), "{}");

    List<Path> removed = new DiscoveryScanner(locations()).removeStale();

    assertThat(removed)
        .hasSize(4)
        .allMatch(p -> p.toString().contains(Long.toString(deadPid)) || p.endsWith("1111.lock"));
    assertThat(liveFiles).allMatch(Files::exists);
    assertThat(foreign).exists();
    live.removeAll();
  }

  @Test
  void scanReportsLiveAndStaleCompanions() throws Exception {
    new DiscoveryFiles(
            locations(), Set.of(DiscoveryTarget.QWEN_CODE), ProcessHandle.current().pid())
        .write(1, "/w", "t", IDE);

    List<DiscoveredCompanion> found = new DiscoveryScanner(locations()).scan();

    assertThat(found)
        .isNotEmpty()
        .allSatisfy(
            c -> {
              assertThat(c.port()).isEqualTo(1);
              assertThat(c.ideName()).contains("Vim");
              assertThat(c.alive()).as("nothing listens on port 1").isFalse();
            });
  }

  @Test
  void resolvesLocationsLikeNode() {
    DiscoveryLocations l =
        DiscoveryLocations.fromEnvironment(Map.of("TMPDIR", "/x/tmp/", "HOME", "/h"));
    assertThat(l.tmpDir()).isEqualTo(Path.of("/x/tmp"));
    assertThat(l.qwenLockDir()).isEqualTo(Path.of("/h/.qwen/ide"));
    assertThat(DiscoveryLocations.fromEnvironment(Map.of("QWEN_HOME", "/q")).qwenLockDir())
        .isEqualTo(Path.of("/q/ide"));
    assertThat(DiscoveryLocations.fromEnvironment(Map.of()).tmpDir()).isEqualTo(Path.of("/tmp"));
  }
}
