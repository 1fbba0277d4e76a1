package dev.companion4j.testkit;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The official MCP Java SDK client, connected to a companion the way the CLIs connect, with a tap
 * on incoming messages: the SDK client has no handler for the companion's custom notifications.
 */
public final class McpTapClient implements AutoCloseable {
  /** A notification as received, with the time it arrived. */
  public record Received(String method, Map<String, Object> params, long nanoTime) {}

  public final List<Received> notifications = new CopyOnWriteArrayList<>();
  public final McpSyncClient client;

  public McpTapClient(int port, String token, String name) {
    HttpClientStreamableHttpTransport http =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp")
            .httpRequestCustomizer(
                (builder, method, uri, body, context) ->
                    builder.header("Authorization", "Bearer " + token))
            .build();
    client =
        McpClient.sync(new Tap(http))
            .clientInfo(new McpSchema.Implementation(name, "1.0"))
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    client.initialize();
  }

  public McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
    return client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  public List<Received> received(String method) {
    return notifications.stream().filter(n -> n.method().equals(method)).toList();
  }

  @Override
  public void close() {
    client.closeGracefully();
  }

  private final class Tap implements McpClientTransport {
    private final McpClientTransport delegate;

    Tap(McpClientTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Mono<Void> connect(
        Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
      return delegate.connect(
          messages ->
              handler.apply(
                  messages.doOnNext(
                      m -> {
                        if (m instanceof McpSchema.JSONRPCNotification n
                            && n.method().startsWith("ide/")) {
                          notifications.add(
                              new Received(
                                  n.method(), (Map<String, Object>) n.params(), System.nanoTime()));
                        }
                      })));
    }

    @Override
    public void setExceptionHandler(java.util.function.Consumer<Throwable> handler) {
      delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
      return delegate.sendMessage(message);
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
      return delegate.protocolVersions();
    }
  }
}
