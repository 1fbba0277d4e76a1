package dev.companion4j.cli.attach;

import dev.companion4j.engine.discovery.CompanionAddress;
import java.net.URI;
import java.util.Optional;

/**
 * A companion that proved it holds {@code token}: where its editor API is. The token is never part
 * of {@link #toString()}.
 *
 * @param started whether this process runs it
 * @param address how discovery found it; empty when this process runs it or the environment named
 *     it
 */
record Target(int port, String token, boolean started, Optional<CompanionAddress> address) {
  static Target found(CompanionAddress address) {
    return new Target(address.port(), address.authToken(), false, Optional.of(address));
  }

  URI editorApi(String route) {
    return URI.create("http://127.0.0.1:" + port + "/editor" + route);
  }

  /**
   * Whether the process its discovery file names has ended: the port may have a new owner before
   * the event stream's end is read, and a request must not reach that owner.
   */
  boolean gone() {
    return address.map(CompanionAddress::processGone).orElse(false);
  }

  @Override
  public String toString() {
    return "Target[port=" + port + ", started=" + started + "]";
  }
}
