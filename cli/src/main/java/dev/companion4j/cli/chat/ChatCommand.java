package dev.companion4j.cli.chat;

/** {@code companion4j chat}: a terminal chat on a {@code qwen serve} daemon. */
public final class ChatCommand {
  private ChatCommand() {}

  /** Runs the chat with the arguments after {@code chat}; returns the process exit code. */
  public static int run(String[] args) {
    System.err.println("companion4j chat: not available yet");
    return 2;
  }
}
