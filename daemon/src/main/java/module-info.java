/**
 * A client for the {@code qwen serve} daemon: sessions, prompts, streamed events and permission
 * answers, free of any UI. Everything under {@code internal} is hidden.
 */
module dev.companion4j.daemon {
  exports dev.companion4j.daemon;
  exports dev.companion4j.daemon.conversation;

  requires dev.companion4j.wire;
  requires java.net.http;
  requires tools.jackson.databind;
  requires org.slf4j;
}
