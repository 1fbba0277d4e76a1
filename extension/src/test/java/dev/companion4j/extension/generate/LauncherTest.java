package dev.companion4j.extension.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extension's launcher ({@code bin/companion4j}) as the CLIs run it for the shell policy: when
 * Java cannot answer, it refuses with exit 2 (the form both CLIs block on), never exit 1 or a
 * timeout, which they read as "go on". A script stands in for Java.
 */
class LauncherTest {
  private static final String INPUT =
      "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"rm -rf x\"}}";

  @TempDir Path extension;
  private Path launcher;

  @BeforeEach
  void stageTheLauncher() throws IOException {
    launcher = StagedLauncher.in(extension);
  }

  private record Run(int exitCode, String out, String err) {}

  private Run hook(String handler) throws Exception {
    Process p = new ProcessBuilder(launcher.toString(), "hook", "qwen", handler).start();
    try (var stdin = p.getOutputStream()) {
      stdin.write(INPUT.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // A launcher that refuses before reading its input (no jar) closes the pipe first.
    }
    boolean answered = p.waitFor(30, TimeUnit.SECONDS);
    if (!answered) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    assertThat(answered).as("the launcher answered").isTrue();
    return new Run(
        p.exitValue(),
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /** A stand-in for Java that runs {@code body}. */
  private void java(String body) throws IOException {
    Files.writeString(extension.resolve("lib/companion4j.jar"), "");
    Path java = extension.resolve("fake-java");
    // The shell policy's answerer, which the launcher starts after a call, is not under test here.
    Files.writeString(
        java, "#!/bin/sh\ncase \"$*\" in *policy-server*) exit 0 ;; esac\n" + body + "\n");
    java.toFile().setExecutable(true);
    Files.writeString(extension.resolve("lib/java"), java.toString());
  }

  @Test
  void withoutItsJarTheShellPolicyRefusesAndOtherHooksFailOpen() throws Exception {
    Run policy = hook("shell-policy");
    assertThat(policy.exitCode()).isEqualTo(2);
    assertThat(policy.err())
        .contains(
            "The Companion4J shell policy refused this command: it could not check it (the extension has no lib/companion4j.jar)");
    assertThat(hook("session-start").exitCode()).isEqualTo(1);
  }

  @Test
  void aJavaThatFailsOrCannotStartMakesTheShellPolicyRefuse() throws Exception {
    java("echo 'Error: Could not create the Java Virtual Machine.' >&2; exit 1");
    Run failed = hook("shell-policy");
    assertThat(failed.exitCode()).isEqualTo(2);
    assertThat(failed.err()).contains("it could not check it (Java exited with 1)");

    Files.writeString(extension.resolve("lib/java"), extension.resolve("no-such-java").toString());
    Run missing = hook("shell-policy");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("it could not check it (Java exited with 127)");
  }

  @Test
  void aJavaThatHangsIsStoppedAndRefusedBeforeTheClisOwnTimeout() throws Exception {
    java("exec sleep 60");
    Run hung = hook("shell-policy");
    assertThat(hung.exitCode()).isEqualTo(2);
    assertThat(hung.err()).contains("it could not check it (no answer within 7 s)");
  }

  /**
   * A class-data archive (JDK 17) serves only the class path it was dumped with, and one that does
   * not match turns class sharing off altogether: the launcher passes it only where it was dumped.
   */
  @Test
  void aClassDataArchiveIsPassedOnlyWhereItWasDumped() throws Exception {
    java("cat > /dev/null; echo \"$*\"");
    Path lib = extension.resolve("lib");
    Files.writeString(lib.resolve("hook-shell-policy.jsa"), "");
    Files.writeString(lib.resolve("hook.classpath"), "/elsewhere/lib/companion4j.jar\n");
    Run copied = hook("shell-policy");
    assertThat(copied.exitCode()).isZero();
    assertThat(copied.out()).contains("HookMain qwen shell-policy").doesNotContain("SharedArchive");

    Files.writeString(lib.resolve("hook.classpath"), lib.resolve("companion4j.jar") + "\n");
    assertThat(hook("shell-policy").out())
        .contains("-XX:SharedArchiveFile=" + lib.resolve("hook-shell-policy.jsa"));
  }

  @Test
  void theDecisionOfAWorkingHookPassesThrough() throws Exception {
    java("cat > /dev/null; echo '{\"decision\":\"deny\",\"reason\":\"r\"}'; exit 0");
    Run run = hook("shell-policy");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("{\"decision\":\"deny\",\"reason\":\"r\"}\n");
  }

  @Test
  void aCompanionTheHooksStartRunsOnTheSmallJvmTheHooksRunOnWithItsTrainedCache() throws Exception {
    java("echo \"$@\"");
    Path jar = extension.resolve("lib/companion4j.jar");
    assertThat(serve())
        .isEqualTo(
            "-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.2 -XX:+UseSerialGC -XX:-UsePerfData -jar "
                + jar
                + " serve\n");

    Path cache = Files.writeString(extension.resolve("lib/companion.aot"), "");
    assertThat(serve())
        .isEqualTo(
            "-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.2 -XX:+UseSerialGC -XX:-UsePerfData -XX:AOTCache="
                + cache
                + " -Xlog:aot=off -Xlog:cds=off -Xlog:cds+dynamic=off -jar "
                + jar
                + " serve\n");
  }

  /** Runs {@code companion4j serve} through the launcher; returns what Java was given. */
  private String serve() throws Exception {
    Process p = new ProcessBuilder(launcher.toString(), "serve").start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the launcher returned").isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
