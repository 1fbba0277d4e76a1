package dev.companion4j.netbeans;

import dev.companion4j.acp.ChatView;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import java.awt.Component;
import javax.swing.JLabel;
import org.openide.awt.StatusLineElementProvider;
import org.openide.util.lookup.ServiceProvider;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * The status-bar item of the daemon chat: its connection state once the chat has started, nothing
 * before; a click brings up the chat window.
 */
@ServiceProvider(service = StatusLineElementProvider.class, position = 410)
public final class ChatStatusIndicator implements StatusLineElementProvider {
  static final String NAME = "companion4j.chatStatus";

  private JLabel label;

  @Override
  public synchronized Component getStatusLineElement() {
    if (label == null) {
      JLabel l = StatusBarLabel.create(NAME, ChatStatusIndicator::showChat);
      l.setToolTipText(
          "The chat, with an ACP agent or the qwen serve daemon \u2014 click to show it");
      ChatService.getDefault().addListener(view -> l.setText(text(view)));
      label = l;
    }
    return label;
  }

  private static void showChat() {
    TopComponent chat = WindowManager.getDefault().findTopComponent(ChatTopComponent.ID);
    if (chat != null) {
      chat.open();
      chat.requestActive();
    }
  }

  /** On the EDT. */
  private static String text(ChatView view) {
    if (!ChatService.getDefault().started()) {
      return "";
    }
    DaemonChat.Status status = view.status();
    String chat = (view.acp() ? view.agent() : "Qwen") + " chat: ";
    Conversation c = status.conversation().orElse(null);
    if (c == null) {
      return chat + (status.problem().isEmpty() ? "connecting\u2026" : "not connected");
    }
    return chat
        + switch (c.state()) {
          case CONNECTED -> "connected";
          case RECONNECTING -> "reconnecting\u2026";
          case DIED -> "disconnected";
          case CLOSED -> "closed";
        };
  }
}
