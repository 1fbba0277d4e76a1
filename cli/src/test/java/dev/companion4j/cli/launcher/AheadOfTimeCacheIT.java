package dev.companion4j.cli.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ahead-of-time cache the launcher records on JDK 25 and later is made from the built jar: a
 * JVM that cannot record it leaves the launcher starting without one, slower and silently.
 */
class AheadOfTimeCacheIT {
  /** Recording runs the self-test and then assembles the cache in a second JVM. */
  private static final Duration RECORDING = Duration.ofMinutes(3);

  @TempDir Path temp;

  @Test
  void theSelfTestRecordsTheCacheTheLauncherStartsWith() throws Exception {
    Optional<Path> java = jdk25();
    assumeTrue(java.isPresent(), "no JDK 25 or later in /usr/lib/jvm");
    Path repo = TestPeers.repoRoot();
    Path cache = temp.resolve("companion4j.aot");
    List<String> command = new ArrayList<>();
    command.add(java.get().toString());
    // The launcher's own flags, read as it reads them.
    try (Stream<String> lines = Files.lines(repo.resolve("cli/jvm.options"))) {
      lines.filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(command::add);
    }
    command.addAll(
        List.of(
            "-XX:AOTCacheOutput=" + cache,
            "-jar",
            repo.resolve("cli/target/companion4j.jar").toString(),
            "selftest"));

    JarCommand recorded =
        JarCommand.run(command, Map.of("HOME", temp.toString()), temp, temp, RECORDING);

    assertThat(recorded.stdout()).contains("selftest: ok");
    assertThat(recorded.stdout() + recorded.stderr()).doesNotContain("A fatal error");
    assertThat(cache).isNotEmptyFile();
  }

  private static Optional<Path> jdk25() throws IOException {
    try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
      return jdks.filter(jdk -> feature(jdk) >= 25)
          .map(jdk -> jdk.resolve("bin/java"))
          .filter(Files::isExecutable)
          .findFirst();
    }
  }

  /** The JDK's feature version from its release file, as the launcher reads it; 0 if none. */
  private static int feature(Path jdk) {
    try (Stream<String> lines = Files.lines(jdk.resolve("release"))) {
      return lines
          .filter(l -> l.startsWith("JAVA_VERSION=\""))
          .map(l -> l.substring("JAVA_VERSION=\"".length()).split("[.\"]")[0])
          .mapToInt(Integer::parseInt)
          .findFirst()
          .orElse(0);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
