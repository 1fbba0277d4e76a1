package dev.companion4j.acp;

import dev.companion4j.daemon.conversation.DaemonChat;
import java.util.List;
import java.util.Optional;

/**
 * What an IDE's chat window shows of its chat, on either path: the daemon's ({@link DaemonChat}) or
 * an ACP agent's ({@link AgentChat}).
 *
 * @param status the conversation and where it runs; on the ACP path its daemon is empty
 * @param agent the ACP agent's program name (never its arguments); empty on the daemon path
 * @param modes the agent's modes; empty on the daemon path, whose session keeps its own
 * @param commands the agent's slash commands
 */
public record ChatView(
    DaemonChat.Status status,
    String agent,
    List<AcpIdeConnection.Mode> modes,
    List<AcpIdeConnection.Command> commands) {
  public ChatView {
    modes = List.copyOf(modes);
    commands = List.copyOf(commands);
  }

  /** A chat on the daemon path. */
  public static ChatView daemon(DaemonChat.Status status) {
    return new ChatView(status, "", List.of(), List.of());
  }

  /** No chat yet, or none any more; {@code problem} says why when one could not start. */
  public static ChatView idle(String problem) {
    return daemon(new DaemonChat.Status("", "", "", problem, List.of(), Optional.empty()));
  }

  /** Whether it is the ACP path. */
  public boolean acp() {
    return !agent.isEmpty();
  }

  /** The window's title: the agent it chats with. */
  public String title() {
    return switch (agent) {
      case "", "qwen" -> "Qwen Code Chat";
      case "gemini" -> "Gemini CLI Chat";
      default -> agent + " Chat";
    };
  }
}
