package dev.companion4j.engine.internal.session;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import java.io.IOException;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the SDK sends on a session's notification stream (its pings) goes through the registry's
 * queue for that session, like every other notification: the send completes once queued, so it
 * never waits for the CLI to read.
 */
final class SessionTransport implements McpStreamableServerTransport {
  private static final JsonMapper JSON = JsonMapper.shared();

  private final String sessionId;
  private final SessionRegistry registry;

  SessionTransport(String sessionId, SessionRegistry registry) {
    this.sessionId = sessionId;
    this.registry = registry;
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return sendMessage(message, null);
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
    return Mono.defer(
        () -> {
          return registry.send(sessionId, null, SessionRegistry.messageFrame(message))
              ? Mono.empty()
              : Mono.error(new IOException("the session " + sessionId + " has ended"));
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return JSON.convertValue(data, JSON.getTypeFactory().constructType(typeRef.getType()));
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.empty();
  }

  @Override
  public void close() {
    // The registry owns the stream and closes it with the session.
  }
}
