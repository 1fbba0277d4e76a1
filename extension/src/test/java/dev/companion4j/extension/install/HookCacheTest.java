package dev.companion4j.extension.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java an installed extension records: the one a release's launcher names, by the name it
 * gives.
 */
class HookCacheTest {
  @TempDir Path temp;

  @AfterEach
  void forget() {
    System.clearProperty(HookCache.LAUNCHER_JAVA);
  }

  @Test
  void theLaunchersJavaIsRecordedThroughTheLinkThatOutlivesUpgrades() throws Exception {
    // A release's runtime, reached as a user's install reaches it: share/companion4j/current ->
    // 1.0.0.
    Path runtime = Files.createDirectories(temp.resolve("share/companion4j/1.0.0/runtime/bin"));
    Files.writeString(runtime.resolve("../release"), "JAVA_VERSION=\"25.0.1\"\n");
    Path java = Files.writeString(runtime.resolve("java"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
    Path current =
        Files.createSymbolicLink(temp.resolve("share/companion4j/current"), Path.of("1.0.0"));
    Path named = current.resolve("runtime/bin/java");
    System.setProperty(HookCache.LAUNCHER_JAVA, named.toString());

    assertThat(HookCache.java()).isEqualTo(named);
    assertThat(HookCache.release(named)).isEqualTo(25);
  }

  @Test
  void aNamedJavaThatIsNotThereIsPassedOver() {
    System.setProperty(HookCache.LAUNCHER_JAVA, temp.resolve("gone/bin/java").toString());

    assertThat(HookCache.java()).isNotEqualTo(temp.resolve("gone/bin/java"));
  }
}
