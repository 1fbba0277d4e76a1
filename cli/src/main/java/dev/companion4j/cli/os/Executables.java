package dev.companion4j.cli.os;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Finding a program as a shell would, before starting it. */
public final class Executables {
  private Executables() {}

  /**
   * The executable file {@code program} names: itself when it holds a path separator, else the
   * first match on the {@code PATH} of {@code env}.
   */
  public static Optional<Path> find(String program, Map<String, String> env) {
    if (program.contains(File.separator)) {
      return Optional.of(Path.of(program)).filter(Executables::isExecutableFile);
    }
    for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && isExecutableFile(Path.of(dir, program))) {
        return Optional.of(Path.of(dir, program));
      }
    }
    return Optional.empty();
  }

  private static boolean isExecutableFile(Path p) {
    return Files.isRegularFile(p) && Files.isExecutable(p);
  }
}
