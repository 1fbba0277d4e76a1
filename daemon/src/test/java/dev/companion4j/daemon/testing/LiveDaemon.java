package dev.companion4j.daemon.testing;

import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import java.io.IOException;

/** A real {@code qwen serve} on a fake model and a client for it, as a test class starts them once. */
public record LiveDaemon(FakeModelServer model, QwenDaemon daemon, DaemonClient client) implements AutoCloseable {

  /** Starts the model, a daemon without a token on it, and the client. */
  public static LiveDaemon start() throws IOException {
    FakeModelServer model = new FakeModelServer();
    QwenDaemon daemon = QwenDaemon.start(model);
    return new LiveDaemon(model, daemon, DaemonClient.connect(daemon.url()));
  }

  @Override
  public void close() {
    client.close();
    daemon.close();
    model.close();
  }
}
