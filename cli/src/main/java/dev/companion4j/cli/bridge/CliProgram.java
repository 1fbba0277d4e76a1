package dev.companion4j.cli.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The program that started the bridge: the CLI, which runs it as its stdio MCP server. Both CLIs
 * name themselves {@code stdio-client} in their handshake, and the companion can only see the
 * bridge's process behind the connection; so the bridge names the CLI in the handshake's {@code
 * clientInfo}, as the companion names a CLI whose process it sees: by the package of the script
 * the process runs.
 *
 * @param name e.g. {@code Qwen Code}, or a package's own name
 * @param version the package's version, or empty
 */
record CliProgram(String name, String version) {
  private static final Map<String, String> PROGRAMS = Map.of(
      "@qwen-code/qwen-code", "Qwen Code",
      "@google/gemini-cli", "Gemini CLI");
  /** How far up from a script its package.json may be ({@code bundle/gemini.js} is one level). */
  private static final int PACKAGE_DEPTH = 3;

  /** The parent process's program, when it runs a script of a Node package. */
  static Optional<CliProgram> ofParent() {
    return ProcessHandle.current().parent().flatMap(parent -> {
      Optional<String[]> arguments = parent.info().arguments();
      if (arguments.isEmpty()) {
        return Optional.empty();
      }
      Path cwd;
      try {
        cwd = Files.readSymbolicLink(Path.of("/proc", Long.toString(parent.pid()), "cwd"));
      } catch (IOException | UnsupportedOperationException e) {
        cwd = Path.of("/");
      }
      return of(List.of(arguments.get()), cwd);
    });
  }

  /**
   * The program of a process run with {@code arguments} (its command excluded) in {@code cwd}: the
   * package of the first argument that is a script. A command installed by npm is a link to the
   * script, so links are followed.
   */
  static Optional<CliProgram> of(List<String> arguments, Path cwd) {
    for (String argument : arguments) {
      if (argument.isEmpty() || argument.startsWith("-")) {
        continue;
      }
      Path script = cwd.resolve(argument);
      if (Files.isRegularFile(script)) {
        try {
          return packageOf(script.toRealPath());
        } catch (IOException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<CliProgram> packageOf(Path script) {
    Path dir = script.getParent();
    for (int i = 0; i < PACKAGE_DEPTH && dir != null; i++, dir = dir.getParent()) {
      Path manifest = dir.resolve("package.json");
      if (Files.isRegularFile(manifest)) {
        try {
          JsonNode pkg = JsonRpc.JSON.readTree(manifest.toFile());
          String name = pkg.path("name").asString("");
          return name.isEmpty()
              ? Optional.empty()
              : Optional.of(new CliProgram(PROGRAMS.getOrDefault(name, name), pkg.path("version").asString("")));
        } catch (JacksonException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }
}
