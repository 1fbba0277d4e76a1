package dev.companion4j.engine.internal.session;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Hands the SDK's session factory through the registry: every session is registered, and the cap
 * enforced, on the thread answering its {@code initialize}, before the answer leaves.
 */
public final class RegisteringTransportProvider implements McpStreamableServerTransportProvider {
  private final McpStreamableServerTransportProvider delegate;
  private final SessionRegistry registry;

  public RegisteringTransportProvider(
      McpStreamableServerTransportProvider delegate, SessionRegistry registry) {
    this.delegate = delegate;
    this.registry = registry;
  }

  @Override
  public void setSessionFactory(McpStreamableServerSession.Factory factory) {
    delegate.setSessionFactory(
        request -> {
          McpStreamableServerSession.McpStreamableServerSessionInit init =
              factory.startSession(request);
          McpSchema.Implementation info = request.clientInfo();
          String name = info == null || info.name() == null ? "unknown" : info.name();
          String version = info == null || info.version() == null ? "" : info.version();
          if (!registry.register(init.session(), name, version)) {
            init.session().close();
            throw new IllegalStateException("too many connected clients");
          }
          return init;
        });
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return delegate.notifyClients(method, params);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }
}
