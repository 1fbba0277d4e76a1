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
  private final Path root;

  private CliEnvironment(Path root) {
    this.root = root;
  }

  /** Creates the folders under {@code root} (a JUnit {@code @TempDir}, say). */
  public static CliEnvironment in(Path root) {
    CliEnvironment env = new CliEnvironment(root.toAbsolutePath());
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
    return root.resolve("home");
  }

  public Path qwenHome() {
    return home().resolve(".qwen");
  }

  public Path tmpDir() {
    return root.resolve("tmp");
  }

  public Path workspace() {
    return root.resolve("workspace");
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
