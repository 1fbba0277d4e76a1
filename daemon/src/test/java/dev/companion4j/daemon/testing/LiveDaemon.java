package dev.companion4j.daemon.testing;

import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.QwenDaemon;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real {@code qwen serve} on a fake model and a client for it, started once for a test class:
 * {@code @RegisterExtension static final LiveDaemon LIVE = new LiveDaemon();}.
 */
public final class LiveDaemon implements BeforeAllCallback, AfterAllCallback {
  private FakeModelServer model;
  private QwenDaemon daemon;
  private DaemonClient client;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    model = new FakeModelServer();
    daemon = QwenDaemon.start(model);
    client = DaemonClient.connect(daemon.url());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (client != null) {
      client.close();
    }
    if (daemon != null) {
      daemon.close();
    }
    if (model != null) {
      model.close();
    }
  }

  public FakeModelServer model() {
    return model;
  }

  public QwenDaemon daemon() {
    return daemon;
  }

  public DaemonClient client() {
    return client;
  }
}
