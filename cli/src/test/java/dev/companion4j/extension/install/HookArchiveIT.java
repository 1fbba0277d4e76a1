package dev.companion4j.extension.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.companion4j.cli.testing.CompanionProcess;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hooks' class-data archive on a JDK older than 25 (the one running the tests), which serves
 * only the class path it was dumped with: the install dumps it again where the CLI copied the
 * extension, and the launcher uses it there.
 */
class HookArchiveIT {
  @TempDir Path temp;

  @Test
  void theArchiveServesTheCopyTheCliMadeOfTheStagedExtension() throws Exception {
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
    assumeTrue(HookCache.release(java) < 25, "the tests run on a JDK that gets an AOT cache");
    Path stage = temp.resolve("stage");
    Path copy = temp.resolve("home/.qwen/extensions/companion4j");
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    new ExtensionInstaller(quiet)
        .prepare(ExtensionInstaller.Cli.QWEN, stage, java, CompanionProcess.jar());
    copyTree(stage, copy);

    HookCache.trainCopy(stage, copy, quiet);

    assertThat(copy.resolve("lib/hook.classpath"))
        .content()
        .isEqualTo(copy.resolve("lib/companion4j.jar") + "\n");
    // -Xshare:on: a JVM that cannot map the archive refuses to start rather than run without it.
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + copy.resolve("lib/hook-shell-policy.jsa"),
                "-Xlog:cds=off",
                "-cp",
                copy.resolve("lib/companion4j.jar").toString(),
                "dev.companion4j.extension.hook.HookMain",
                "qwen",
                "shell-policy")
            .redirectErrorStream(true)
            .start();
    try (OutputStream stdin = p.getOutputStream()) {
      stdin.write(
          "{\"tool_input\":{\"command\":\"rm -rf build\"}}".getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).startsWith("{\"decision\":\"deny\"");
  }

  /** As a CLI installs an extension: a copy of the folder, files and all, elsewhere. */
  private static void copyTree(Path from, Path to) throws Exception {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(from)) {
      paths = walk.toList();
    }
    for (Path path : paths) {
      Path target = to.resolve(from.relativize(path).toString());
      if (Files.isDirectory(path)) {
        Files.createDirectories(target);
      } else {
        Files.copy(path, target);
      }
    }
  }
}
