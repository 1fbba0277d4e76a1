package dev.companion4j.eclipse.chat;

import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.daemon.conversation.DaemonChat;
import java.util.List;

/**
 * What the chat view shows of its chat, on either path.
 *
 * @param status the conversation and where it runs; on the ACP path its daemon is empty
 * @param agent the ACP agent's program name (never its arguments); empty on the daemon path
 * @param modes the agent's modes; empty on the daemon path, whose session keeps its own
 * @param commands the agent's slash commands
 */
record ChatView(
    DaemonChat.Status status,
    String agent,
    List<AcpIdeConnection.Mode> modes,
    List<AcpIdeConnection.Command> commands) {
  ChatView {
    modes = List.copyOf(modes);
    commands = List.copyOf(commands);
  }

  static ChatView daemon(DaemonChat.Status status) {
    return new ChatView(status, "", List.of(), List.of());
  }

  /** Not started, or stopped; {@code problem} says why when it could not start. */
  static ChatView idle(String problem) {
    return daemon(
        new DaemonChat.Status("", "", "", problem, List.of(), java.util.Optional.empty()));
  }

  boolean acp() {
    return !agent.isEmpty();
  }

  /** The view's title: the agent it chats with. */
  String title() {
    switch (agent) {
      case "":
      case "qwen":
        return "Qwen Code Chat";
      case "gemini":
        return "Gemini CLI Chat";
      default:
        return agent + " Chat";
    }
  }
}
