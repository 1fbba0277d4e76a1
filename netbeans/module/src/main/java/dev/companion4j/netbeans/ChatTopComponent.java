package dev.companion4j.netbeans;

import dev.companion4j.daemon.DaemonEvent.FileDiff;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.Entry;
import java.awt.BorderLayout;
import java.awt.Component;
import java.awt.Dimension;
import java.awt.FlowLayout;
import java.awt.event.ActionEvent;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javax.swing.AbstractAction;
import javax.swing.BorderFactory;
import javax.swing.BoxLayout;
import javax.swing.JButton;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JMenuItem;
import javax.swing.JPanel;
import javax.swing.JPopupMenu;
import javax.swing.JScrollPane;
import javax.swing.JTabbedPane;
import javax.swing.JTextArea;
import javax.swing.KeyStroke;
import javax.swing.event.HyperlinkEvent;
import org.netbeans.api.diff.Diff;
import org.netbeans.api.diff.DiffView;
import org.netbeans.api.diff.StreamSource;
import org.openide.awt.ActionID;
import org.openide.awt.ActionReference;
import org.openide.windows.TopComponent;

/**
 * Window &gt; Qwen Code Chat: a conversation with the {@code qwen serve} daemon, on the same
 * adapter as the review page's chat panel ({@link DaemonChat}, owned by {@link ChatService}). A
 * permission request is a card with the daemon's options and, for a file change, the change in
 * NetBeans' diff view, read-only.
 *
 * <p>Everything here runs on the EDT.
 */
@TopComponent.Description(
    preferredID = ChatTopComponent.ID,
    persistenceType = TopComponent.PERSISTENCE_NEVER)
@TopComponent.Registration(mode = "properties", openAtStartup = false)
@ActionID(category = "Window", id = "dev.companion4j.netbeans.ChatTopComponent")
@ActionReference(path = "Menu/Window", position = 1450)
@TopComponent.OpenActionRegistration(
    displayName = "Qwen Code Chat",
    preferredID = ChatTopComponent.ID)
public final class ChatTopComponent extends TopComponent {
  static final String ID = "Companion4JChatTopComponent";
  private static final long serialVersionUID = 1L;
  private static final String THOUGHT_LINK = "thought:";

  private final JLabel state = named(new JLabel("Not connected"), "companion4j.chat.state");
  private final JTextArea where = named(new JTextArea(), "companion4j.chat.where");
  private final JButton fresh = named(new JButton("New session"), "companion4j.chat.new");
  private final JButton sessions =
      named(new JButton("Sessions\u2026"), "companion4j.chat.sessions");
  private final JComboBox<String> model = named(new JComboBox<>(), "companion4j.chat.model");
  private final JEditorPane log = named(new JEditorPane("text/html", ""), "companion4j.chat.log");
  private final JPanel permissions = named(new JPanel(), "companion4j.chat.permissions");
  private final JTextArea input = named(new JTextArea(3, 40), "companion4j.chat.input");
  private final JButton send = named(new JButton("Send"), "companion4j.chat.send");
  private final JButton cancel = named(new JButton("Cancel"), "companion4j.chat.cancel");

  /**
   * The cards shown, by request id: kept across updates so a diff view keeps its scroll position.
   */
  private final transient Map<String, JComponent> cards = new LinkedHashMap<>();

  private final Set<String> openThoughts = new HashSet<>();
  private final transient Consumer<DaemonChat.Status> listener = this::render;
  private transient DaemonChat.Status shown;
  private boolean showingModel;

  public ChatTopComponent() {
    setName("Qwen Code Chat");
    setToolTipText("A chat with the qwen serve daemon");
    setLayout(new BorderLayout());

    JPanel session = new JPanel(new FlowLayout(FlowLayout.LEFT, 6, 2));
    session.add(state);
    JPanel choices = new JPanel(new FlowLayout(FlowLayout.LEFT, 6, 2));
    choices.add(fresh);
    choices.add(sessions);
    choices.add(new JLabel("Model:"));
    model.setEditable(true);
    model.setRenderer(PlainText.renderer());
    model.setPrototypeDisplayValue("a-long-model-name-of-some-provider");
    model.setToolTipText(
        "The model of this session; type another one's id to switch (empty: the daemon's default)");
    choices.add(model);
    where.setEditable(false);
    where.setLineWrap(true);
    where.setWrapStyleWord(true);
    where.setOpaque(false);
    where.setBorder(BorderFactory.createEmptyBorder(0, 8, 4, 8));
    JPanel head = new JPanel();
    head.setLayout(new BoxLayout(head, BoxLayout.Y_AXIS));
    for (JComponent row : new JComponent[] {session, choices, where}) {
      row.setAlignmentX(LEFT_ALIGNMENT);
      head.add(row);
    }
    add(head, BorderLayout.NORTH);

    log.setEditable(false);
    log.putClientProperty(JEditorPane.HONOR_DISPLAY_PROPERTIES, Boolean.TRUE);
    log.addHyperlinkListener(this::linkClicked);
    permissions.setLayout(new BoxLayout(permissions, BoxLayout.Y_AXIS));
    JPanel middle = new JPanel(new BorderLayout());
    middle.add(new JScrollPane(log), BorderLayout.CENTER);
    middle.add(permissions, BorderLayout.SOUTH);
    add(middle, BorderLayout.CENTER);

    JPanel foot = new JPanel(new BorderLayout());
    input.setLineWrap(true);
    input.setWrapStyleWord(true);
    input.setToolTipText("Ctrl+Enter sends");
    input
        .getInputMap()
        .put(KeyStroke.getKeyStroke(KeyEvent.VK_ENTER, InputEvent.CTRL_DOWN_MASK), "send");
    input
        .getActionMap()
        .put(
            "send",
            new AbstractAction() {
              private static final long serialVersionUID = 1L;

              @Override
              public void actionPerformed(ActionEvent e) {
                send();
              }
            });
    foot.add(new JScrollPane(input), BorderLayout.CENTER);
    JPanel buttons = new JPanel(new FlowLayout(FlowLayout.RIGHT));
    buttons.add(cancel);
    buttons.add(send);
    foot.add(buttons, BorderLayout.SOUTH);
    add(foot, BorderLayout.SOUTH);

    cancel.setEnabled(false);
    fresh.addActionListener(e -> ChatService.getDefault().newSession());
    sessions.addActionListener(e -> pickSession());
    send.addActionListener(e -> send());
    cancel.addActionListener(e -> ChatService.getDefault().cancel());
    model.addActionListener(e -> modelChosen());
  }

  @Override
  protected void componentOpened() {
    ChatService.getDefault().addListener(listener);
    ChatService.getDefault().start();
  }

  @Override
  protected void componentClosed() {
    ChatService.getDefault().removeListener(listener);
  }

  private void send() {
    String text = input.getText().strip();
    if (text.isEmpty()) {
      return;
    }
    input.setText("");
    ChatService.getDefault().prompt(text);
  }

  private void modelChosen() {
    Object chosen = model.getSelectedItem();
    String current =
        shown == null ? "" : shown.conversation().map(Conversation::modelName).orElse("");
    if (!showingModel && chosen instanceof String id && !id.isBlank() && !id.equals(current)) {
      ChatService.getDefault().setModel(id.strip());
    }
  }

  /** Lists the workspace's sessions under the button; choosing one attaches to it. */
  private void pickSession() {
    ChatService.getDefault()
        .sessions(
            list -> {
              JPopupMenu menu = new JPopupMenu();
              menu.setName("companion4j.chat.sessionMenu");
              String current = shown == null ? "" : shown.sessionId();
              for (SessionSummary s : list) {
                String title =
                    s.displayName() == null || s.displayName().isBlank()
                        ? s.sessionId()
                        : s.displayName();
                String attached =
                    s.clientCount() > 0 ? " \u00b7 " + s.clientCount() + " attached" : "";
                JMenuItem item =
                    PlainText.menuItem(
                        title + attached + (s.sessionId().equals(current) ? " (this one)" : ""));
                item.setName("companion4j.chat.session:" + s.sessionId());
                item.setEnabled(!s.sessionId().equals(current));
                item.addActionListener(e -> ChatService.getDefault().attach(s.sessionId()));
                menu.add(item);
              }
              if (list.isEmpty()) {
                menu.add(new JMenuItem("No sessions in this workspace")).setEnabled(false);
              }
              menu.show(sessions, 0, sessions.getHeight());
            },
            why -> state.setText("Cannot list sessions: " + why));
  }

  private void linkClicked(HyperlinkEvent e) {
    if (e.getEventType() != HyperlinkEvent.EventType.ACTIVATED || e.getDescription() == null) {
      return;
    }
    String id =
        e.getDescription().startsWith(THOUGHT_LINK)
            ? e.getDescription().substring(THOUGHT_LINK.length())
            : null;
    if (id != null) {
      if (!openThoughts.remove(id)) {
        openThoughts.add(id);
      }
      render(shown);
    }
  }

  private void render(DaemonChat.Status status) {
    shown = status;
    Conversation c = status.conversation().orElse(null);
    state.setText(stateText(status, c));
    fresh.setText(
        c != null
                && (c.state() == Conversation.State.DIED || c.state() == Conversation.State.CLOSED)
            ? "Reconnect"
            : "New session");
    where.setText(
        status.workspace().isEmpty()
            ? ""
            : "The agent runs on "
                + status.daemon()
                + " in "
                + status.workspace()
                + ": that host's files, tools and credentials, not this machine's.");
    boolean live = c != null && c.state() == Conversation.State.CONNECTED;
    // A prompt sent during a turn waits in the daemon's queue.
    send.setEnabled(live);
    cancel.setEnabled(live && c.turnRunning());
    sessions.setEnabled(!status.daemon().isEmpty());
    showModels(status, c);
    log.setText(logHtml(c));
    log.setCaretPosition(log.getDocument().getLength());
    showPermissions(c == null ? List.of() : c.permissions());
  }

  static String stateText(DaemonChat.Status status, Conversation c) {
    if (c == null) {
      return status.problem().isEmpty() ? "Connecting\u2026" : "Not connected: " + status.problem();
    }
    String text =
        switch (c.state()) {
          case CONNECTED -> c.turnRunning() ? "Working\u2026" : "Connected";
          case RECONNECTING -> "Reconnecting\u2026";
          case DIED -> "Disconnected: " + c.stateReason();
          case CLOSED -> "Session closed";
        };
    return text + (c.approvalMode().isEmpty() ? "" : " \u00b7 approval: " + c.approvalMode());
  }

  /** The daemon's models to pick from, and the one in use, unless the user is typing one. */
  private void showModels(DaemonChat.Status status, Conversation c) {
    showingModel = true;
    try {
      List<String> offered = new ArrayList<>();
      for (int i = 0; i < model.getItemCount(); i++) {
        offered.add(model.getItemAt(i));
      }
      if (!offered.equals(status.models())) {
        model.removeAllItems();
        status.models().forEach(model::addItem);
      }
      if (!model.getEditor().getEditorComponent().isFocusOwner()) {
        model.setSelectedItem(c == null ? "" : c.modelName());
      }
      model.setEnabled(c != null && c.state() == Conversation.State.CONNECTED);
    } finally {
      showingModel = false;
    }
  }

  private String logHtml(Conversation c) {
    StringBuilder html = new StringBuilder("<html><body style='font-family: sans-serif'>");
    if (c != null) {
      for (Entry e : c.entries()) {
        html.append(entryHtml(e));
      }
      if (!c.plan().isEmpty()) {
        html.append("<p><b>Plan</b></p><ul>");
        for (PlanEntry p : c.plan()) {
          html.append("<li>")
              .append(planMark(p.status()))
              .append(' ')
              .append(escape(p.content()))
              .append("</li>");
        }
        html.append("</ul>");
      }
    }
    return html.append("</body></html>").toString();
  }

  private String entryHtml(Entry e) {
    if (e instanceof Entry.UserMessage u) {
      return "<p style='background-color: #e8eef7'><b>You:</b> "
          + escape(u.text()).replace("\n", "<br>")
          + "</p>";
    } else if (e instanceof Entry.AssistantMessage m) {
      return "<div>"
          + Markdown.toHtml(m.text())
          + (m.streaming() ? "<p>\u2026</p>" : "")
          + "</div>";
    } else if (e instanceof Entry.Thought t) {
      boolean open = openThoughts.contains(t.id());
      String head =
          "<p><a href='"
              + THOUGHT_LINK
              + t.id()
              + "'>"
              + (open ? "\u25be" : "\u25b8")
              + " Thought</a>"
              + (t.streaming() ? " \u2026" : "")
              + "</p>";
      return open
          ? head + "<blockquote><i>" + escape(t.text()).replace("\n", "<br>") + "</i></blockquote>"
          : head;
    } else if (e instanceof Entry.ToolCall t) {
      String locations =
          t.locations().isEmpty()
              ? ""
              : " <tt>" + escape(String.join(", ", t.locations())) + "</tt>";
      return "<p>\u2699 <b>"
          + escape(t.title())
          + "</b>"
          + locations
          + " \u2014 <i>"
          + escape(t.status().replace('_', ' '))
          + "</i></p>";
    } else if (e instanceof Entry.Notice n) {
      return "<p><i>"
          + escape(n.level().name().toLowerCase(Locale.ROOT) + ": " + n.text())
          + "</i></p>";
    }
    throw new IllegalArgumentException("an entry this window cannot show: " + e);
  }

  private static String planMark(String status) {
    return switch (status) {
      case "completed" -> "\u2611";
      case "in_progress" -> "\u25b6";
      default -> "\u2610";
    };
  }

  /** Adds a card for each new request and removes those no longer pending. */
  private void showPermissions(List<Conversation.PendingPermission> pending) {
    Set<String> ids = new HashSet<>();
    for (Conversation.PendingPermission p : pending) {
      ids.add(p.requestId());
      cards.computeIfAbsent(
          p.requestId(),
          id -> {
            JComponent card = permissionCard(p);
            permissions.add(card);
            return card;
          });
    }
    cards
        .entrySet()
        .removeIf(
            card -> {
              if (ids.contains(card.getKey())) {
                return false;
              }
              permissions.remove(card.getValue());
              return true;
            });
    permissions.revalidate();
    permissions.repaint();
  }

  private JComponent permissionCard(Conversation.PendingPermission p) {
    JPanel card =
        named(new JPanel(new BorderLayout()), "companion4j.chat.permission:" + p.requestId());
    card.setBorder(BorderFactory.createTitledBorder("The agent asks: " + p.title()));
    if (!p.diffs().isEmpty()) {
      JTabbedPane changes = new JTabbedPane();
      for (FileDiff diff : p.diffs()) {
        String name = String.valueOf(Path.of(diff.path()).getFileName());
        changes.addTab(name, diffView(diff));
        changes.setTabComponentAt(changes.getTabCount() - 1, PlainText.label(name));
      }
      changes.setPreferredSize(new Dimension(600, 260));
      card.add(changes, BorderLayout.CENTER);
    } else if (!p.locations().isEmpty()) {
      card.add(PlainText.label(String.join(", ", p.locations())), BorderLayout.CENTER);
    }
    JPanel answers = new JPanel(new FlowLayout(FlowLayout.LEFT));
    for (PermissionOption option : p.options()) {
      JButton answer =
          named(PlainText.button(option.name()), "companion4j.chat.option:" + option.optionId());
      answer.putClientProperty("kind", option.kind());
      answer.addActionListener(
          e -> {
            // One answer per request: the card goes once the daemon has it.
            for (Component button : answers.getComponents()) {
              button.setEnabled(false);
            }
            ChatService.getDefault().answer(p.requestId(), option.optionId());
          });
      answers.add(answer);
    }
    card.add(answers, BorderLayout.SOUTH);
    return card;
  }

  /** The change a tool call would make, read-only in NetBeans' diff view. */
  private static Component diffView(FileDiff diff) {
    String name = String.valueOf(Path.of(diff.path()).getFileName());
    try {
      DiffView view =
          Diff.getDefault()
              .createDiff(
                  StreamSource.createSource(
                      name,
                      diff.oldText().isEmpty() ? "New file" : diff.path(),
                      "text/plain",
                      new StringReader(diff.oldText())),
                  StreamSource.createSource(
                      name, "After the tool call", "text/plain", new StringReader(diff.newText())));
      return named(view.getComponent(), "companion4j.chat.diff:" + diff.path());
    } catch (IOException e) {
      return new JLabel("Cannot show the change to " + diff.path() + ": " + e.getMessage());
    }
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static <T extends Component> T named(T component, String name) {
    component.setName(name);
    return component;
  }
}
