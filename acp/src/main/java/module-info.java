/**
 * A chat connection to an Agent Client Protocol agent ({@code qwen --acp}, {@code gemini --acp} or
 * any ACP command) on stdio, feeding the same conversation model as the daemon path. Everything
 * under {@code internal} is hidden.
 */
module dev.companion4j.acp {
  exports dev.companion4j.acp;

  requires transitive dev.companion4j.daemon;
  requires transitive dev.companion4j.engine;
  requires dev.companion4j.wire;
  // The ACP SDK has no module descriptor; its file name gives it this automatic name.
  requires acp.core;
  requires reactor.core;
  requires org.reactivestreams;
  requires tools.jackson.databind;
  requires org.slf4j;
}
