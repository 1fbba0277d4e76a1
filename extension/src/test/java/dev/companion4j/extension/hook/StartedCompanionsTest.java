package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session records and logs of started companions, against another local user who can write
 * where they live.
 */
class StartedCompanionsTest {
  @TempDir Path dir;
  private Map<String, String> env;
  private Path state;
  private Path sessions;
  private Process sleeper;

  @BeforeEach
  void openStateFolders() throws IOException {
    state = dir.resolve("state");
    sessions = Files.createDirectories(state.resolve("sessions"));
    // As a careless umask or another tool could have left them: anyone may write.
    Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.setPosixFilePermissions(sessions, PosixFilePermissions.fromString("rwxrwxrwx"));
    env =
        Map.of(
            "COMPANION4J_STATE",
            state.toString(),
            "TMPDIR",
            dir.resolve("tmp").toString(),
            "HOME",
            dir.toString());
  }

  @AfterEach
  void stopSleeper() {
    if (sleeper != null) {
      sleeper.destroyForcibly();
    }
  }

  @Test
  void looseStateFoldersAreTightenedBeforeUse() throws IOException {
    StartedCompanions.forUser(env).handOffMark("s", "code_reviewer");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state)))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sessions)))
        .isEqualTo("rwx------");
  }

  @Test
  void aRecordInAFolderOthersCouldWriteNamesNoProcessToStop() throws Exception {
    sleeper = new ProcessBuilder("sleep", "60").start();
    long started = sleeper.toHandle().info().startInstant().orElse(Instant.EPOCH).toEpochMilli();
    // What another user would forge: the record of a process of the user's, with its true start
    // time.
    Files.writeString(sessions.resolve("s.companion"), sleeper.pid() + " " + started + "\n");
    assertThat(StartedCompanions.forUser(env).stop("s")).isFalse();
    assertThat(sleeper.isAlive()).isTrue();

    // The same record in folders only the user can write is the hook's own, and is obeyed.
    Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
    Files.setPosixFilePermissions(sessions, PosixFilePermissions.fromString("rwx------"));
    assertThat(StartedCompanions.forUser(env).stop("s")).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> !sleeper.isAlive());
  }

  @Test
  void aLogLinkPlantedInTheSessionsFolderIsRefusedAndItsTargetUntouched() throws Exception {
    Path target = Files.writeString(dir.resolve("bashrc"), "# the user's\n");
    Files.createSymbolicLink(sessions.resolve("s.log"), target);
    Path marker = dir.resolve("launched");
    Path launcher = dir.resolve("launcher");
    Files.writeString(launcher, "#!/bin/sh\ntouch '" + marker + "'\necho 'evil line'\nexit 1\n");
    launcher.toFile().setExecutable(true);
    Path workspace = Files.createDirectories(dir.resolve("workspace"));

    assertThatThrownBy(
            () ->
                StartedCompanions.forUser(env)
                    .start(
                        "s",
                        launcher,
                        workspace,
                        new IdeLink(DiscoveryLocations.fromEnvironment(env)),
                        Duration.ZERO))
        .isInstanceOf(IOException.class);
    assertThat(target).hasContent("# the user's");
    assertThat(marker).doesNotExist();
  }

  @Test
  void anotherUsersStateFolderIsRefused() throws Exception {
    Assumptions.assumeTrue(
        System.getProperty("user.name").equals("root"),
        "only root can give a folder to another user");
    UserPrincipal nobody =
        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    Files.setOwner(sessions, nobody);
    assertThatThrownBy(() -> StartedCompanions.forUser(env).handOffMark("s", "code_reviewer"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("belongs to nobody");
  }
}
