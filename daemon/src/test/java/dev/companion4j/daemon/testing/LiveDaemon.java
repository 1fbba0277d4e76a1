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
  private final String token;
  private FakeModelServer model;
  private QwenDaemon daemon;
  private DaemonClient client;

  /** A daemon on trusted loopback, without a token. */
  public LiveDaemon() {
    this(null);
  }

  /** A daemon that requires {@code token} on every request; the client sends it. */
  public LiveDaemon(String token) {
    this.token = token;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    model = new FakeModelServer();
    daemon = QwenDaemon.start(model, token);
    DaemonClient.Builder builder = DaemonClient.builder().baseUrl(daemon.url());
    client = (token == null ? builder : builder.token(token)).build();
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
