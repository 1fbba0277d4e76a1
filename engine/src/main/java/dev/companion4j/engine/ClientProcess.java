package dev.companion4j.engine;

import java.util.Objects;

/**
 * The process behind a CLI's connection, when the companion can tell (on Linux, for a process of
 * the same user): what lets a user tell Qwen Code from Gemini CLI, and one terminal from another,
 * although both CLIs call themselves {@code streamable-http-client} in their handshake.
 *
 * @param pid the process id, or 0 when unknown
 * @param program the program, e.g. {@code Qwen Code}, or empty when unknown
 * @param programVersion the program's version from its package, or empty
 * @param terminal the terminal it runs in, e.g. {@code pts/3}, or empty when it has none
 */
public record ClientProcess(long pid, String program, String programVersion, String terminal) {
  /** Nothing known. */
  public static final ClientProcess UNKNOWN = new ClientProcess(0, "", "", "");

  public ClientProcess {
    Objects.requireNonNull(program, "program");
    Objects.requireNonNull(programVersion, "programVersion");
    Objects.requireNonNull(terminal, "terminal");
  }

  /** Whether the process was found. */
  public boolean known() {
    return pid > 0;
  }
}
