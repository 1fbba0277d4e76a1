package dev.companion4j.cli.bridge;

import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The companion the bridge relays to: its MCP endpoint, the token it wants and how messages name
 * it. The token is never part of {@link #toString()}.
 *
 * @param endpoint its {@code /mcp} URI
 * @param token its bearer token
 * @param description e.g. {@code the companion on port 41233 (workspace /home/me/app)}
 */
record CompanionTarget(URI endpoint, String token, String description) {
  CompanionTarget {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(description, "description");
  }

  /**
   * The companion of this user's that serves {@code dir}, as {@code companion4j open} finds it: the
   * newest first.
   */
  static CompanionTarget serving(Path dir, DiscoveryLocations locations) throws BridgeFailure {
    List<CompanionAddress> serving = new DiscoveryScanner(locations).serving(dir);
    if (serving.isEmpty()) {
      throw new BridgeFailure(
          Bridge.EXIT_UNREACHABLE,
          "no running companion of yours serves "
              + dir
              + " (looked in "
              + places(locations)
              + "); start one with: companion4j serve --workspace "
              + dir);
    }
    return local(serving.get(0));
  }

  /** The companion of this user's on {@code port}, with the token from its discovery file. */
  static CompanionTarget onPort(int port, DiscoveryLocations locations) throws BridgeFailure {
    return new DiscoveryScanner(locations)
        .reachable().stream()
            .filter(a -> a.port() == port)
            .findFirst()
            .map(CompanionTarget::local)
            .orElseThrow(
                () ->
                    new BridgeFailure(
                        Bridge.EXIT_UNREACHABLE,
                        "no running companion of yours on port "
                            + port
                            + " (looked in "
                            + places(locations)
                            + ")"));
  }

  /** A companion named on the command line, with its token from an owner-only file. */
  static CompanionTarget at(HostPort address, Path tokenFile) throws BridgeFailure {
    return new CompanionTarget(
        URI.create("http://" + address + "/mcp"),
        TokenFile.read(tokenFile),
        "the companion at " + address);
  }

  private static CompanionTarget local(CompanionAddress a) {
    return new CompanionTarget(
        URI.create("http://127.0.0.1:" + a.port() + "/mcp"),
        a.authToken(),
        "the companion on port " + a.port() + " (workspace " + a.workspacePath() + ")");
  }

  private static String places(DiscoveryLocations l) {
    return l.qwenLockDir() + ", " + l.qwenSpecDir() + ", " + l.geminiDir() + " and " + l.tmpDir();
  }

  @Override
  public String toString() {
    return "CompanionTarget[endpoint=" + endpoint + ", description=" + description + "]";
  }

  /**
   * A host and port as {@code --address} takes them: {@code HOST:PORT}, an IPv6 host in brackets.
   *
   * @param host a name or an address, without brackets
   * @param port 1 to 65535
   */
  record HostPort(String host, int port) {
    HostPort {
      if (host.isEmpty()) {
        throw new IllegalArgumentException("the host is empty");
      }
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("the port must be 1 to 65535, not " + port);
      }
    }

    /**
     * @throws IllegalArgumentException with what is wrong, in words for the user
     */
    static HostPort parse(String text) {
      int colon = text.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(
            "expected HOST:PORT, e.g. 127.0.0.1:41233, but there is no ':'");
      }
      String host = text.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      } else if (host.contains(":")) {
        throw new IllegalArgumentException("an IPv6 host goes in brackets, e.g. [::1]:41233");
      }
      int port;
      try {
        port = Integer.parseInt(text.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "the port is not a number: " + text.substring(colon + 1));
      }
      return new HostPort(host, port);
    }

    @Override
    public String toString() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }
}
