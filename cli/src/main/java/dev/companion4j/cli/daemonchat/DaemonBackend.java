package dev.companion4j.cli.daemonchat;

import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.conversation.DaemonChat;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** The chat routes on the daemon path. */
record DaemonBackend(DaemonChat chat) implements ChatApi.Backend {
  @Override
  public Map<String, Object> state() {
    return ChatJson.status(chat.status());
  }

  @Override
  public List<Map<String, Object>> sessions() throws IOException {
    return chat.sessions().stream().map(ChatJson::session).toList();
  }

  @Override
  public void prompt(String text) {
    chat.connection().prompt(text);
  }

  @Override
  public void cancel() {
    chat.connection().cancel();
  }

  @Override
  public void setModel(String modelId) {
    chat.connection().setModel(modelId);
  }

  @Override
  public void setMode(String modeId) {
    throw new IllegalStateException(
        "the daemon path has no mode switch: the daemon's session keeps its own approval mode");
  }

  @Override
  public boolean answer(String requestId, String optionId) {
    return chat.connection().answer(requestId, optionId);
  }

  @Override
  public void newSession() {
    chat.connect();
  }

  @Override
  public void attach(String sessionId) {
    chat.attach(sessionId);
  }

  @Override
  public String refusal(RuntimeException e) {
    return e instanceof DaemonException ? "the daemon refused: " + e.getMessage() : null;
  }
}
