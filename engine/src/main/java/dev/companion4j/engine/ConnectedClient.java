package dev.companion4j.engine;

import java.time.Instant;
import java.util.Objects;

/**
 * A CLI connected to the companion.
 *
 * @param id the MCP session id
 * @param name the client's own name from its MCP handshake (e.g. {@code streamable-http-client})
 * @param version the client's version from the handshake, or empty
 * @param connectedAt when its handshake completed
 * @param process the process behind the connection, or {@link ClientProcess#UNKNOWN}
 */
public record ConnectedClient(
    String id, String name, String version, Instant connectedAt, ClientProcess process) {
  public ConnectedClient {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(connectedAt, "connectedAt");
    Objects.requireNonNull(process, "process");
  }

  /** A client known only by its handshake. */
  public ConnectedClient(String id, String name, String version, Instant connectedAt) {
    this(id, name, version, connectedAt, ClientProcess.UNKNOWN);
  }

  /**
   * How a user tells this CLI from others: {@code Qwen Code 0.24.4 (pts/3, pid 4242)} when its
   * process is known, else the handshake's name and version.
   */
  public String label() {
    String program = process.program().isEmpty() ? name : process.program();
    String version = process.program().isEmpty() ? this.version : process.programVersion();
    StringBuilder label = new StringBuilder(program);
    if (!version.isEmpty()) {
      label.append(' ').append(version);
    }
    if (process.known()) {
      label
          .append(" (")
          .append(process.terminal().isEmpty() ? "" : process.terminal() + ", ")
          .append("pid ")
          .append(process.pid())
          .append(')');
    }
    return label.toString();
  }
}
