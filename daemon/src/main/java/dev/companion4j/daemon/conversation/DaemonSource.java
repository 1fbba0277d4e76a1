package dev.companion4j.daemon.conversation;

import dev.companion4j.daemon.DaemonClient;
import java.io.IOException;
import java.time.Duration;

/** Where the chat's daemon comes from: one that already runs, or one the companion starts. */
public interface DaemonSource extends AutoCloseable {
  /** The daemon adapter draft's environment fallback: the address of a running daemon. */
  String URL_VARIABLE = "QWEN_IDE_DAEMON_URL";

  /** The daemon's bearer token, as {@code qwen serve} itself reads it. */
  String TOKEN_VARIABLE = "QWEN_SERVER_TOKEN";

  /**
   * How long a client waits for a dropped daemon to come back: a chat view shows "reconnecting"
   * meanwhile, and past this says the daemon is gone and offers to reconnect.
   */
  Duration RECONNECT_BUDGET = Duration.ofSeconds(15);

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

  /**
   * A daemon that runs already at {@code baseUrl}, with the chat's reconnect budget.
   *
   * @param token its bearer token, or {@code null} or blank for a daemon on loopback without one
   * @throws IllegalArgumentException saying why the address cannot be used
   */
  static DaemonSource running(String baseUrl, String token) {
    DaemonClient.Builder builder =
        DaemonClient.builder().baseUrl(baseUrl).reconnectBudget(RECONNECT_BUDGET);
    if (token != null && !token.isBlank()) {
      builder.token(token.strip());
    }
    return running(builder.build());
  }

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
