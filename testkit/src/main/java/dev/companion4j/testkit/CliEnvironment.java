package dev.companion4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An isolated home for one test: its own HOME, QWEN_HOME and TMPDIR, so the companion's discovery
 * files and the CLIs' searches meet there and nowhere else, and a workspace folder inside it.
 */
public final class CliEnvironment {
  private final Path home;
  private final Path qwenHome;
  private final Path tmpDir;
  private final Path workspace;

  private CliEnvironment(Path home, Path qwenHome, Path tmpDir, Path workspace) {
    this.home = home.toAbsolutePath();
    this.qwenHome = qwenHome.toAbsolutePath();
    this.tmpDir = tmpDir.toAbsolutePath();
    this.workspace = workspace.toAbsolutePath();
  }

  /** Creates the folders under {@code root} (a JUnit {@code @TempDir}, say). */
  public static CliEnvironment in(Path root) {
    Path home = root.resolve("home");
    return create(
        new CliEnvironment(
            home, home.resolve(".qwen"), root.resolve("tmp"), root.resolve("workspace")));
  }

  /**
   * The folders of a companion that runs elsewhere (an IDE under test), to meet its discovery
   * files.
   */
  public static CliEnvironment sharing(Path home, Path qwenHome, Path tmpDir, Path workspace) {
    return create(new CliEnvironment(home, qwenHome, tmpDir, workspace));
  }

  private static CliEnvironment create(CliEnvironment env) {
    try {
      Files.createDirectories(env.home());
      Files.createDirectories(env.tmpDir());
      Files.createDirectories(env.workspace());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return env;
  }

  public Path home() {
    return home;
  }

  public Path qwenHome() {
    return qwenHome;
  }

  public Path tmpDir() {
    return tmpDir;
  }

  public Path workspace() {
    return workspace;
  }

  /** The variables both the companion and the CLIs must see. */
  public Map<String, String> variables() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", home().toString());
    env.put("QWEN_HOME", qwenHome().toString());
    env.put("TMPDIR", tmpDir().toString());
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    // Test machines run in containers (/.dockerenv); without this Gemini CLI connects only to
    // host.docker.internal instead of 127.0.0.1.
    env.put("SSH_CONNECTION", "127.0.0.1 1 127.0.0.1 2");
    return env;
  }

  /** Writes a file in the workspace and returns its absolute path. */
  public Path file(String relative, String content) {
    Path file = workspace().resolve(relative);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
