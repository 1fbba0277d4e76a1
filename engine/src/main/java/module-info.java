/**
 * The companion engine: the whole IDE companion contract of Qwen Code and Gemini CLI, editor
 * independent. A host implements {@link dev.companion4j.engine.CompanionHost} and builds a {@link
 * dev.companion4j.engine.Companion}; everything under {@code internal} is hidden.
 */
module dev.companion4j.engine {
  exports dev.companion4j.engine;
  exports dev.companion4j.engine.discovery;
  exports dev.companion4j.engine.http;

  requires transitive jakarta.servlet;
  requires dev.companion4j.wire;
  requires transitive tools.jackson.databind;
  requires io.modelcontextprotocol.sdk.mcp.core;
  requires io.modelcontextprotocol.sdk.mcp.json.jackson3;
  requires reactor.core;
  requires org.reactivestreams;
  requires org.eclipse.jetty.ee10.servlet;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.io;
  requires org.eclipse.jetty.util;
  requires org.slf4j;
  requires com.google.gson;
}
