package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.DaemonClient;
import java.io.IOException;

/** Where the chat's daemon comes from: one that already runs, or one the companion starts. */
public interface DaemonSource extends AutoCloseable {

  /**
   * The client for the daemon, starting the daemon first if this source starts one. Called on the
   * chat's connecting thread, never on a request's.
   *
   * @throws IOException saying why there is no daemon to talk to
   */
  DaemonClient client() throws IOException;

  /** Closes the client and stops a daemon this source started. */
  @Override
  void close();

  /** A daemon that runs already, reached with {@code client}. */
  static DaemonSource running(DaemonClient client) {
    return new DaemonSource() {
      @Override
      public DaemonClient client() {
        return client;
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
