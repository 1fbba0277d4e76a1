package dev.companion4j.acp;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An ACP agent to start: its command line, the folder it starts in, and variables added to the
 * environment it inherits.
 *
 * @param command the program and its arguments, e.g. {@code [qwen, --acp]}
 * @param cwd the folder it starts in, usually the workspace
 * @param environment added to the environment it inherits; never shown or logged
 */
public record AcpAgent(List<String> command, Path cwd, Map<String, String> environment) {
  public AcpAgent {
    command = List.copyOf(command);
    if (command.isEmpty() || command.get(0).isBlank()) {
      throw new IllegalArgumentException("an agent command is needed");
    }
    Objects.requireNonNull(cwd, "cwd");
    environment = Map.copyOf(environment);
  }

  /**
   * The agent a user names: {@code qwen} and {@code gemini} are those CLIs in ACP mode; anything
   * else is a command line of its own, split at spaces.
   */
  public static AcpAgent named(String name, Path cwd) {
    String trimmed = name.strip();
    List<String> command =
        switch (trimmed) {
          case "qwen" -> List.of("qwen", "--acp");
          case "gemini" -> List.of("gemini", "--acp");
          default -> List.of(trimmed.split("\\s+"));
        };
    return new AcpAgent(command, cwd, Map.of());
  }

  /** The same agent with {@code more} added to its environment. */
  public AcpAgent withEnvironment(Map<String, String> more) {
    Map<String, String> all = new java.util.HashMap<>(environment);
    all.putAll(more);
    return new AcpAgent(command, cwd, all);
  }

  /** The command without its ACP flag: what a user runs in a terminal to log in. */
  String interactiveCommand() {
    return String.join(
        " ",
        command.stream()
            .filter(a -> !a.equals("--acp") && !a.equals("--experimental-acp"))
            .toList());
  }

  @Override
  public String toString() {
    return "AcpAgent[" + String.join(" ", command) + " in " + cwd + "]";
  }
}
