package dev.companion4j.netbeans;

import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.daemon.conversation.DaemonChat;
import java.util.List;

/**
 * What the chat window shows of its chat, on either path.
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

  boolean acp() {
    return !agent.isEmpty();
  }

  /** The window's title: the agent it chats with. */
  String title() {
    return switch (agent) {
      case "", "qwen" -> "Qwen Code Chat";
      case "gemini" -> "Gemini CLI Chat";
      default -> agent + " Chat";
    };
  }
}
