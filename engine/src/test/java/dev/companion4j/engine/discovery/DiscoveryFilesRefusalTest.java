package dev.companion4j.engine.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.IdeInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Writing discovery files where other local users may have been first. */
class DiscoveryFilesRefusalTest {
  private static final IdeInfo IDE = new IdeInfo("vim", "Vim");
  private static final long PID = 4242;
  private static final int PORT = 5555;

  @TempDir Path temp;

  private DiscoveryLocations locations() {
    return new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("home/.qwen"));
  }

  private Path tmp() throws IOException {
    return Files.createDirectories(locations().tmpDir());
  }

  private Path file(DiscoveryFileKind kind) {
    return kind.path(locations(), PID, PORT);
  }

  private List<Path> write() throws IOException {
    return new DiscoveryFiles(locations(), EnumSet.allOf(DiscoveryTarget.class), PID)
        .write(PORT, "/w", "t", IDE);
  }

  @Test
  void aDirectoryWritableByOthersIsRefusedAndTheOtherGenerationsAreWritten() throws Exception {
    // Shared and sticky like /tmp: fine for the legacy file, which lives there.
    Plant.chmod("1777", tmp());
    Path geminiDir = Plant.chmod("777", Files.createDirectories(locations().geminiDir()));

    assertThat(write())
        .containsExactlyInAnyOrder(
            file(DiscoveryFileKind.QWEN_LOCK),
            file(DiscoveryFileKind.QWEN_SPEC),
            file(DiscoveryFileKind.QWEN_LEGACY));
    assertThat(geminiDir).isEmptyDirectory();
  }

  @Test
  void aTmpDirWritableByOthersWithoutTheStickyBitGetsNoFile() throws Exception {
    Path tmp = Plant.chmod("777", tmp());

    assertThat(write()).containsExactly(file(DiscoveryFileKind.QWEN_LOCK));
    assertThat(tmp).isEmptyDirectory();
  }

  @Test
  void aLinkedDirectoryIsRefusedAndNothingIsWrittenWhereItPoints() throws Exception {
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Plant.link(tmp().resolve("qwen"), elsewhere);

    assertThat(write())
        .containsExactlyInAnyOrder(
            file(DiscoveryFileKind.QWEN_LOCK),
            file(DiscoveryFileKind.QWEN_LEGACY),
            file(DiscoveryFileKind.GEMINI));
    assertThat(elsewhere).isEmptyDirectory();
  }

  @Test
  void aDirectoryOfAnotherUserIsRefused() throws Exception {
    Plant.assumeRoot();
    Path gemini = Plant.giveToNobody(Files.createDirectories(tmp().resolve("gemini")));

    assertThat(write())
        .containsExactlyInAnyOrder(
            file(DiscoveryFileKind.QWEN_LOCK),
            file(DiscoveryFileKind.QWEN_SPEC),
            file(DiscoveryFileKind.QWEN_LEGACY));
    assertThat(gemini).isEmptyDirectory();
  }

  @ParameterizedTest
  @ValueSource(strings = {"link", "dangling link", "fifo", "directory", "file of another user"})
  void anEntryPlantedAtTheExactLegacyNameIsLeftAloneAndTheOthersAreWritten(String planted)
      throws Exception {
    Path legacy = file(DiscoveryFileKind.QWEN_LEGACY);
    Path victim = Files.writeString(temp.resolve("victim.txt"), "keep");
    tmp();
    switch (planted) {
      case "link" -> Plant.link(legacy, victim);
      case "dangling link" -> Plant.link(legacy, temp.resolve("nowhere"));
      case "fifo" -> Plant.fifo(legacy);
      case "directory" -> Files.createDirectory(legacy);
      default -> {
        Plant.assumeRoot();
        Plant.giveToNobody(Files.writeString(legacy, "foreign"));
      }
    }
    boolean wasLink = Files.isSymbolicLink(legacy);
    boolean wasDirectory = Files.isDirectory(legacy, LinkOption.NOFOLLOW_LINKS);
    boolean wasRegular = Files.isRegularFile(legacy, LinkOption.NOFOLLOW_LINKS);

    assertThat(write())
        .containsExactlyInAnyOrder(
            file(DiscoveryFileKind.QWEN_LOCK),
            file(DiscoveryFileKind.QWEN_SPEC),
            file(DiscoveryFileKind.GEMINI));

    assertThat(Files.isSymbolicLink(legacy)).isEqualTo(wasLink);
    assertThat(Files.isDirectory(legacy, LinkOption.NOFOLLOW_LINKS)).isEqualTo(wasDirectory);
    assertThat(Files.isRegularFile(legacy, LinkOption.NOFOLLOW_LINKS)).isEqualTo(wasRegular);
    assertThat(Files.exists(legacy, LinkOption.NOFOLLOW_LINKS)).isTrue();
    if (wasRegular) {
      assertThat(legacy).hasContent("foreign");
    }
    assertThat(victim).hasContent("keep");
  }

  @Test
  void aFileWrittenBeforeALaterGenerationFailsIsRecordedAndRemoved() throws Exception {
    // A regular file where the temporary directory should be: every file there fails to write.
    Path notADirectory = Files.writeString(temp.resolve("tmp-is-a-file"), "x");
    DiscoveryLocations broken = new DiscoveryLocations(notADirectory, temp.resolve("home/.qwen"));
    DiscoveryFiles files = new DiscoveryFiles(broken, EnumSet.allOf(DiscoveryTarget.class), PID);
    Path lock = DiscoveryFileKind.QWEN_LOCK.path(broken, PID, PORT);

    assertThatThrownBy(() -> files.write(PORT, "/w", "t", IDE)).isInstanceOf(IOException.class);

    assertThat(files.files()).containsExactly(lock);
    assertThat(lock).exists();
    files.removeAll();
    assertThat(lock).doesNotExist();
  }

  @Test
  void writingNoFileAtAllFails() throws Exception {
    Path geminiDir = Plant.chmod("777", Files.createDirectories(locations().geminiDir()));
    DiscoveryFiles files = new DiscoveryFiles(locations(), Set.of(DiscoveryTarget.GEMINI_CLI), PID);

    assertThatThrownBy(() -> files.write(PORT, "/w", "secret-token", IDE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(geminiDir.toString())
        .hasMessageNotContaining("secret-token");
    assertThat(files.files()).isEmpty();
    assertThat(geminiDir).isEmptyDirectory();
  }
}
