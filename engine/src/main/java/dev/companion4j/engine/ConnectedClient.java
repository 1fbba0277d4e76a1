package dev.companion4j.engine;

import java.time.Instant;
import java.util.Objects;

/**
 * A CLI connected to the companion.
 *
 * @param id the MCP session id
 * @param name the client's own name from its MCP handshake (e.g. {@code qwen-code-cli})
 * @param version the client's version from the handshake, or empty
 * @param connectedAt when its handshake completed
 */
public record ConnectedClient(String id, String name, String version, Instant connectedAt) {
  public ConnectedClient {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(connectedAt, "connectedAt");
  }
}
