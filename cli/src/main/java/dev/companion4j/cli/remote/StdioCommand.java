package dev.companion4j.cli.remote;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The command a CLI starts to reach a companion that runs elsewhere; it speaks MCP over its stdin
 * and stdout ({@code ssh laptop companion4j bridge …}, {@code docker exec -i …}).
 */
public record StdioCommand(String command, List<String> args) {
  public StdioCommand {
    Objects.requireNonNull(command, "command");
    args = List.copyOf(args);
  }

  /**
   * Splits a command line at runs of whitespace, and nowhere else: no shell reads it, so quotes,
   * backslashes and {@code $} reach the command as they are (ssh, though, hands its words to the
   * remote shell, which does read them).
   *
   * @throws IllegalArgumentException when the line holds no word
   */
  public static StdioCommand parse(String line) {
    String trimmed = line.strip();
    if (trimmed.isEmpty()) {
      throw new IllegalArgumentException(
          "is empty; give the command that reaches the companion, e.g. "
              + "'ssh laptop companion4j bridge --map /workspaces/app=/home/me/app'");
    }
    String[] words = trimmed.split("\\s+");
    return new StdioCommand(words[0], Arrays.asList(words).subList(1, words.length));
  }
}
