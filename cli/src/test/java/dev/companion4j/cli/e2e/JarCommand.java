package dev.companion4j.cli.e2e;

import dev.companion4j.cli.testing.CompanionProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One {@code companion4j} command from the shaded jar, run to its end. */
record JarCommand(int exitCode, String stdout, String stderr) {
  /** Only stops a hung command from hanging the build; nothing here measures speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(60);

  /**
   * Runs the command with exactly {@code env}; its output goes to files in {@code outputDir}, so a
   * full pipe cannot stall it.
   */
  static JarCommand run(Map<String, String> env, Path cwd, Path outputDir, String... args) throws Exception {
    List<String> command = CompanionProcess.command(args);
    Path out = Files.createTempFile(outputDir, "stdout", ".txt");
    Path err = Files.createTempFile(outputDir, "stderr", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("companion4j " + String.join(" ", args) + " did not return; stderr:\n" + Files.readString(err));
    }
    return new JarCommand(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
