package dev.companion4j.engine.discovery;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach a running companion, as its discovery file tells this user: the port and the bearer
 * token. The token is never part of {@link #toString()}.
 *
 * @param port the companion's loopback port
 * @param authToken the bearer token its requests need
 * @param workspacePath the workspace roots, joined with the path separator
 * @param ideName the IDE's display name, or empty when the file names none
 * @param file the discovery file it was read from
 * @param pid the process that runs the companion, if the file names it
 */
public record CompanionAddress(
    int port,
    String authToken,
    String workspacePath,
    String ideName,
    Path file,
    Optional<Long> pid) {
  public CompanionAddress {
    Objects.requireNonNull(authToken, "authToken");
    Objects.requireNonNull(workspacePath, "workspacePath");
    Objects.requireNonNull(ideName, "ideName");
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(pid, "pid");
  }

  /**
   * Whether the process the file names has ended. Whoever binds the port next is not this
   * companion, so nothing, the token least of all, goes to that port any more.
   */
  public boolean processGone() {
    return pid.isPresent() && !DiscoveryScanner.processAlive(pid.get());
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
        + ", pid="
        + pid.map(String::valueOf).orElse("unknown")
        + "]";
  }
}
