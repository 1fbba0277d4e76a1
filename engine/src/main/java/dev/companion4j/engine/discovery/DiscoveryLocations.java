package dev.companion4j.engine.discovery;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where the CLIs look for companions, resolved from an environment the way the CLIs (Node programs)
 * resolve it: {@code os.tmpdir()} honours {@code TMPDIR} and {@code os.homedir()} honours {@code
 * HOME}, while the JVM's {@code java.io.tmpdir} and {@code user.home} ignore both, so the JVM's own
 * values would send the files where no CLI looks.
 */
public record DiscoveryLocations(Path tmpDir, Path qwenHome) {

  public DiscoveryLocations {
    Objects.requireNonNull(tmpDir, "tmpDir");
    Objects.requireNonNull(qwenHome, "qwenHome");
  }

  /** The locations for this process's environment. */
  public static DiscoveryLocations fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** The locations a CLI started with {@code env} would search. */
  public static DiscoveryLocations fromEnvironment(Map<String, String> env) {
    Path tmp = nodeTmpDir(env);
    String qwenHome = env.get("QWEN_HOME");
    Path qwen;
    if (qwenHome != null && !qwenHome.isBlank()) {
      qwen = Path.of(qwenHome);
    } else {
      qwen = home(env).resolve(".qwen");
    }
    return new DiscoveryLocations(tmp, qwen.toAbsolutePath().normalize());
  }

  /**
   * The user's home as the CLIs see it: {@code HOME} from {@code env}, else the JVM's {@code
   * user.home} (from the password database, which a changed {@code HOME} does not move). Every
   * directory of the user's that Companion4J reads or writes is found from here.
   */
  public static Path home(Map<String, String> env) {
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      home = System.getProperty("user.home");
    }
    return Path.of(home).toAbsolutePath().normalize();
  }

  private static Path nodeTmpDir(Map<String, String> env) {
    boolean windows = System.getProperty("os.name", "").startsWith("Windows");
    String[] names =
        windows ? new String[] {"TEMP", "TMP"} : new String[] {"TMPDIR", "TMP", "TEMP"};
    for (String name : names) {
      String value = env.get(name);
      if (value != null && !value.isBlank()) {
        // Node strips one trailing separator; Path does the same.
        return Path.of(value).toAbsolutePath().normalize();
      }
    }
    return windows ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of("/tmp");
  }

  /** Qwen Code 0.24 and later: {@code <qwenHome>/ide/<port>.lock}. */
  public Path qwenLockDir() {
    return qwenHome.resolve("ide");
  }

  /**
   * The Qwen Code companion spec: {@code <tmp>/qwen/ide/qwen-code-ide-server-<pid>-<port>.json}.
   */
  public Path qwenSpecDir() {
    return tmpDir.resolve("qwen").resolve("ide");
  }

  /** Gemini CLI: {@code <tmp>/gemini/ide/gemini-ide-server-<pid>-<port>.json}. */
  public Path geminiDir() {
    return tmpDir.resolve("gemini").resolve("ide");
  }
}
