package dev.companion4j.netbeans;

import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonEvent.FileDiff;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonIdeConnection;
import dev.companion4j.daemon.conversation.Entry;
import java.awt.BorderLayout;
import java.awt.FlowLayout;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import javax.swing.BorderFactory;
import javax.swing.BoxLayout;
import javax.swing.JButton;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTextArea;
import javax.swing.SwingUtilities;
import org.netbeans.api.diff.Diff;
import org.netbeans.api.diff.DiffView;
import org.netbeans.api.diff.StreamSource;
import org.openide.DialogDescriptor;
import org.openide.DialogDisplayer;
import org.openide.awt.ActionID;
import org.openide.awt.ActionReference;
import org.openide.awt.StatusDisplayer;
import org.openide.util.RequestProcessor;
import org.openide.windows.TopComponent;

/**
 * Window &gt; Qwen Code Chat: a conversation with the {@code qwen serve} daemon, on the same
 * adapter as the review page's chat panel ({@link DaemonIdeConnection}). A permission request
 * shows its options and, for a file change, the change in NetBeans' diff view.
 *
 * <p>Conversations arrive on the adapter's thread and are shown on the EDT; talking to the daemon
 * happens on a request processor, never on the EDT.
 */
@TopComponent.Description(preferredID = "Companion4JChatTopComponent", persistenceType = TopComponent.PERSISTENCE_NEVER)
@TopComponent.Registration(mode = "output", openAtStartup = false)
@ActionID(category = "Window", id = "dev.companion4j.netbeans.ChatTopComponent")
@ActionReference(path = "Menu/Window", position = 1450)
@TopComponent.OpenActionRegistration(displayName = "Qwen Code Chat", preferredID = "Companion4JChatTopComponent")
public final class ChatTopComponent extends TopComponent {
  private static final long serialVersionUID = 1L;
  private static final RequestProcessor DAEMON = new RequestProcessor("Companion4J chat", 1);

  private final JLabel state = new JLabel("Not connected");
  private final JLabel where = new JLabel(" ");
  private final JButton connect = new JButton("Connect");
  private final JButton cancel = new JButton("Cancel");
  private final JButton send = new JButton("Send");
  private final JEditorPane log = new JEditorPane("text/html", "");
  private final JPanel permissions = new JPanel();
  private final JTextArea input = new JTextArea(3, 40);

  // Written on the request processor, read on the EDT.
  private transient volatile DaemonClient client;
  private transient volatile DaemonIdeConnection connection;

  public ChatTopComponent() {
    setName("Qwen Code Chat");
    setToolTipText("A chat with the qwen serve daemon");
    setLayout(new BorderLayout());
    JPanel head = new JPanel(new BorderLayout());
    JPanel status = new JPanel(new FlowLayout(FlowLayout.LEFT));
    status.add(state);
    status.add(connect);
    head.add(status, BorderLayout.NORTH);
    head.add(where, BorderLayout.SOUTH);
    add(head, BorderLayout.NORTH);
    log.setEditable(false);
    permissions.setLayout(new BoxLayout(permissions, BoxLayout.Y_AXIS));
    JPanel middle = new JPanel(new BorderLayout());
    middle.add(new JScrollPane(log), BorderLayout.CENTER);
    middle.add(permissions, BorderLayout.SOUTH);
    add(middle, BorderLayout.CENTER);
    JPanel foot = new JPanel(new BorderLayout());
    input.setLineWrap(true);
    foot.add(new JScrollPane(input), BorderLayout.CENTER);
    JPanel buttons = new JPanel(new FlowLayout(FlowLayout.RIGHT));
    buttons.add(cancel);
    buttons.add(send);
    foot.add(buttons, BorderLayout.SOUTH);
    add(foot, BorderLayout.SOUTH);
    cancel.setVisible(false);
    connect.addActionListener(e -> connect());
    send.addActionListener(e -> send());
    cancel.addActionListener(e -> onDaemon(() -> connection.cancel()));
  }

  @Override
  protected void componentOpened() {
    if (connection == null) {
      connect();
    }
  }

  @Override
  protected void componentClosed() {
    DaemonIdeConnection last = connection;
    connection = null;
    DAEMON.post(() -> {
      if (last != null) {
        last.close();
      }
    });
  }

  /** Starts a new session in the main project's folder, on the daemon the settings name. */
  private void connect() {
    state.setText("Connecting…");
    Path workspace = NetBeansHost.openProjectDirectories().stream().findFirst().orElse(null);
    DAEMON.post(() -> {
      try {
        String url = DaemonChatSettings.url().orElseThrow(() -> new IOException(
            "no daemon set: Tools > Options > Companion4J, or QWEN_IDE_DAEMON_URL"));
        // Past this the window says the daemon is gone and offers to reconnect, as the review page does.
        DaemonClient.Builder builder = DaemonClient.builder().baseUrl(url).reconnectBudget(Duration.ofSeconds(15));
        DaemonChatSettings.token().ifPresent(builder::token);
        DaemonClient opened = builder.build();
        SessionOptions options = (workspace == null ? SessionOptions.defaults() : SessionOptions.forWorkspace(workspace.toString()))
            .asNewThread();
        DaemonIdeConnection next = DaemonIdeConnection.open(opened, options, c -> SwingUtilities.invokeLater(() -> render(c)));
        DaemonIdeConnection previous = connection;
        DaemonClient previousClient = client;
        connection = next;
        client = opened;
        if (previous != null) {
          previous.close();
        }
        if (previousClient != null) {
          previousClient.close();
        }
        SwingUtilities.invokeLater(() -> {
          where.setText("Runs on " + next.locality().daemon() + " in " + next.locality().workspace()
              + ": that host's files, tools and credentials, not this machine's.");
          render(next.conversation());
        });
      } catch (IOException | RuntimeException e) {
        SwingUtilities.invokeLater(() -> state.setText("Not connected: " + e.getMessage()));
      }
    });
  }

  private void send() {
    String text = input.getText().strip();
    if (text.isEmpty() || connection == null) {
      return;
    }
    input.setText("");
    onDaemon(() -> connection.prompt(text));
  }

  private void onDaemon(Runnable call) {
    DAEMON.post(() -> {
      try {
        call.run();
      } catch (RuntimeException e) {
        StatusDisplayer.getDefault().setStatusText("Qwen Code chat: " + e.getMessage());
      }
    });
  }

  /** On the EDT. */
  private void render(Conversation c) {
    String mode = c.approvalMode().isEmpty() ? "" : " · approval: " + c.approvalMode();
    String model = c.modelId().isEmpty() ? "" : " · model: " + c.modelId();
    state.setText(switch (c.state()) {
      case CONNECTED -> "Connected";
      case RECONNECTING -> "Reconnecting…";
      case DIED -> "Disconnected: " + c.stateReason();
      case CLOSED -> "Session closed";
    } + mode + model);
    connect.setText(c.state() == Conversation.State.DIED || c.state() == Conversation.State.CLOSED ? "Reconnect" : "New session");
    cancel.setVisible(c.turnRunning());
    StringBuilder html = new StringBuilder("<html><body>");
    for (Entry e : c.entries()) {
      html.append(entryHtml(e));
    }
    log.setText(html.append("</body></html>").toString());
    permissions.removeAll();
    for (Conversation.PendingPermission p : c.permissions()) {
      permissions.add(permissionCard(p));
    }
    permissions.revalidate();
    permissions.repaint();
  }

  private static String entryHtml(Entry e) {
    if (e instanceof Entry.UserMessage u) {
      return "<p><b>You:</b> " + escape(u.text()) + "</p>";
    } else if (e instanceof Entry.AssistantMessage m) {
      return "<p>" + escape(m.text()).replace("\n", "<br>") + (m.streaming() ? " …" : "") + "</p>";
    } else if (e instanceof Entry.Thought t) {
      return "<p><i>(thought, " + t.text().length() + " characters)</i></p>";
    } else if (e instanceof Entry.ToolCall t) {
      return "<p><b>[" + escape(t.status()) + "]</b> " + escape(t.title()) + "</p>";
    } else if (e instanceof Entry.Notice n) {
      return "<p><i>" + escape(n.level().name().toLowerCase(Locale.ROOT) + ": " + n.text()) + "</i></p>";
    }
    return "";
  }

  private JPanel permissionCard(Conversation.PendingPermission p) {
    JPanel card = new JPanel(new FlowLayout(FlowLayout.LEFT));
    card.setBorder(BorderFactory.createTitledBorder("Permission: " + p.title()));
    for (FileDiff diff : p.diffs()) {
      JButton review = new JButton("Review " + Path.of(diff.path()).getFileName());
      review.addActionListener(e -> showDiff(diff));
      card.add(review);
    }
    for (PermissionOption option : p.options()) {
      JButton answer = new JButton(option.name());
      answer.setName(option.kind());
      answer.addActionListener(e -> onDaemon(() -> connection.answer(p.requestId(), option.optionId())));
      card.add(answer);
    }
    return card;
  }

  /** The change a tool call would make, read-only in NetBeans' diff view. */
  private void showDiff(FileDiff diff) {
    String name = String.valueOf(Path.of(diff.path()).getFileName());
    try {
      DiffView view = Diff.getDefault().createDiff(
          StreamSource.createSource(name, diff.oldText().isEmpty() ? "New file" : "On the daemon's host", "text/plain",
              new StringReader(diff.oldText())),
          StreamSource.createSource(name, "After the tool call", "text/plain", new StringReader(diff.newText())));
      DialogDisplayer.getDefault().notify(new DialogDescriptor(view.getComponent(), "Proposed change to " + diff.path()));
    } catch (IOException e) {
      StatusDisplayer.getDefault().setStatusText("Cannot show the change to " + diff.path() + ": " + e.getMessage());
    }
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
