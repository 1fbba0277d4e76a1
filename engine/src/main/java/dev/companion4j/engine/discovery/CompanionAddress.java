package dev.companion4j.engine.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to reach a running companion, as its discovery file tells this user: the port and the bearer
 * token. The token is never part of {@link #toString()}.
 *
 * @param port the companion's loopback port
 * @param authToken the bearer token its requests need
 * @param workspacePath the workspace roots, joined with the path separator
 * @param ideName the IDE's display name, or empty when the file names none
 * @param file the discovery file it was read from
 */
public record CompanionAddress(
    int port, String authToken, String workspacePath, String ideName, Path file) {
  public CompanionAddress {
    Objects.requireNonNull(authToken, "authToken");
    Objects.requireNonNull(workspacePath, "workspacePath");
    Objects.requireNonNull(ideName, "ideName");
    Objects.requireNonNull(file, "file");
  }

  @Override
  public String toString() {
    return "CompanionAddress[port="
        + port
        + ", ideName="
        + ideName
        + ", workspacePath="
        + workspacePath
        + ", file="
        + file
        + "]";
  }
}
