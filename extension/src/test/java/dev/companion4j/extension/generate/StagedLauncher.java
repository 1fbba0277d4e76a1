package dev.companion4j.extension.generate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The extension's launcher as the generator writes it, staged for a test. */
public final class StagedLauncher {
  private StagedLauncher() {}

  /**
   * Writes Qwen Code's {@code bin/companion4j} into {@code extension}, with an empty {@code lib/}
   * beside it.
   *
   * @return the launcher
   */
  public static Path in(Path extension) throws IOException {
    ExtensionGenerator generator = new ExtensionGenerator(Path.of("source").toAbsolutePath());
    RuntimeConfig qwen =
        generator.runtimes().stream()
            .filter(r -> r.runtime().equals("qwen"))
            .findFirst()
            .orElseThrow();
    Path launcher = extension.resolve(ExtensionGenerator.LAUNCHER);
    Files.createDirectories(launcher.getParent());
    Files.write(launcher, generator.generate(qwen).get(ExtensionGenerator.LAUNCHER));
    launcher.toFile().setExecutable(true);
    Files.createDirectories(extension.resolve("lib"));
    return launcher;
  }
}
