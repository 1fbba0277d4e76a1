package dev.companion4j.cli.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One {@code companion4j} command, from the shaded jar or through a launcher, run to its end. */
public record JarCommand(int exitCode, String stdout, String stderr) {
  /** Only stops a hung command from hanging the build; nothing here measures speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(60);

  /**
   * Runs the command with exactly {@code env}; its output goes to files in {@code outputDir}, so a
   * full pipe cannot stall it.
   */
  public static JarCommand run(Map<String, String> env, Path cwd, Path outputDir, String... args)
      throws Exception {
    return run(CompanionProcess.command(args), env, cwd, outputDir);
  }

  /**
   * The same for a whole command line, e.g. a clone's {@code companion4j} launcher and its
   * arguments.
   */
  public static JarCommand run(
      List<String> command, Map<String, String> env, Path cwd, Path outputDir) throws Exception {
    return run(command, env, cwd, outputDir, HANG_GUARD);
  }

  /** The same, for a command that may take longer than a minute, such as a build. */
  public static JarCommand run(
      List<String> command, Map<String, String> env, Path cwd, Path outputDir, Duration hangGuard)
      throws Exception {
    Path out = Files.createTempFile(outputDir, "stdout", ".txt");
    Path err = Files.createTempFile(outputDir, "stderr", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(cwd.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(hangGuard.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", command) + " did not return; stderr:\n" + Files.readString(err));
    }
    return new JarCommand(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
