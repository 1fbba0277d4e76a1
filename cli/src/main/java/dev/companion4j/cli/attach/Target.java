package dev.companion4j.cli.attach;

import java.net.URI;

/**
 * A companion that proved it holds {@code token}: where its editor API is. The token is never part
 * of {@link #toString()}.
 *
 * @param started whether this process runs it
 */
record Target(int port, String token, boolean started) {
  URI editorApi(String route) {
    return URI.create("http://127.0.0.1:" + port + "/editor" + route);
  }

  @Override
  public String toString() {
    return "Target[port=" + port + ", started=" + started + "]";
  }
}
