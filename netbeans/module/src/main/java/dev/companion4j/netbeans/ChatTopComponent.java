package dev.companion4j.netbeans;

import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.acp.ChatView;
import dev.companion4j.daemon.DaemonEvent.FileDiff;
import dev.companion4j.daemon.DaemonEvent.PermissionOption;
import dev.companion4j.daemon.DaemonEvent.PlanEntry;
import dev.companion4j.daemon.DaemonEvent.Question;
import dev.companion4j.daemon.DaemonEvent.QuestionOption;
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
import java.util.function.Supplier;
import javax.swing.AbstractAction;
import javax.swing.AbstractButton;
import javax.swing.BorderFactory;
import javax.swing.BoxLayout;
import javax.swing.ButtonGroup;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JMenuItem;
import javax.swing.JPanel;
import javax.swing.JPopupMenu;
import javax.swing.JRadioButton;
import javax.swing.JScrollPane;
import javax.swing.JTabbedPane;
import javax.swing.JTextArea;
import javax.swing.JTextField;
import javax.swing.KeyStroke;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;
import javax.swing.event.HyperlinkEvent;
import javax.swing.text.BadLocationException;
import javax.swing.text.Element;
import javax.swing.text.html.HTMLDocument;
import org.netbeans.api.diff.Diff;
import org.netbeans.api.diff.DiffView;
import org.netbeans.api.diff.StreamSource;
import org.openide.awt.ActionID;
import org.openide.awt.ActionReference;
import org.openide.windows.TopComponent;

/**
 * Window &gt; Agent Chat: a conversation with an ACP agent the chat starts, or with the {@code qwen
 * serve} daemon, on the same model as the review page's chat panel (owned by {@link ChatService}).
 * A permission request is a card with the agent's options and, for a file change, the change in
 * NetBeans' diff view, read-only; the agent's questions are a card to answer. The log renders
 * incrementally: a finished entry once, a streamed chunk only its own entry. The tab names the
 * agent (Qwen Code Chat, Gemini CLI Chat).
 *
 * <p>Everything here runs on the EDT.
 */
@TopComponent.Description(
    preferredID = ChatTopComponent.ID,
    persistenceType = TopComponent.PERSISTENCE_NEVER)
@TopComponent.Registration(mode = "properties", openAtStartup = false)
@ActionID(category = "Window", id = "dev.companion4j.netbeans.ChatTopComponent")
@ActionReference(path = "Menu/Window", position = 1450)
@TopComponent.OpenActionRegistration(displayName = "Agent Chat", preferredID = ChatTopComponent.ID)
public final class ChatTopComponent extends TopComponent {
  static final String ID = "Companion4JChatTopComponent";
  private static final long serialVersionUID = 1L;
  private static final String THOUGHT_LINK = "thought:";
  private static final String EMPTY_LOG =
      "<html><body style='font-family: sans-serif'><div id='entries'></div><div id='plan'></div>"
          + "</body></html>";

  /** How many of the agent's slash commands the hint under the input lists. */
  private static final int COMMANDS_SHOWN = 6;

  private final JLabel state = named(new JLabel("Not connected"), "companion4j.chat.state");
  private final JTextArea where = named(new JTextArea(), "companion4j.chat.where");
  private final JButton fresh = named(new JButton("New session"), "companion4j.chat.new");
  private final JButton sessions =
      named(new JButton("Sessions\u2026"), "companion4j.chat.sessions");
  private final JComboBox<String> model = named(new JComboBox<>(), "companion4j.chat.model");
  private final JLabel modeLabel = new JLabel("Mode:");
  private final JComboBox<String> mode = named(new JComboBox<>(), "companion4j.chat.mode");
  private final JEditorPane log = named(new JEditorPane("text/html", ""), "companion4j.chat.log");
  private final JPanel permissions = named(new JPanel(), "companion4j.chat.permissions");
  private final JTextArea input = named(new JTextArea(3, 40), "companion4j.chat.input");
  private final JLabel commandHint = named(PlainText.label(" "), "companion4j.chat.commands");
  private final JButton send = named(new JButton("Send"), "companion4j.chat.send");
  private final JButton cancel = named(new JButton("Cancel"), "companion4j.chat.cancel");

  /**
   * The cards shown, by request id: kept across updates so a diff view keeps its scroll position.
   */
  private final transient Map<String, JComponent> cards = new LinkedHashMap<>();

  private final Set<String> openThoughts = new HashSet<>();

  /** The entries the log shows, by position: an update re-renders only those that differ. */
  private final transient List<Entry> rendered = new ArrayList<>();

  private transient List<PlanEntry> renderedPlan = List.of();
  private final transient Consumer<ChatView> listener = this::render;
  private transient ChatView shown;
  private boolean showingModel;

  public ChatTopComponent() {
    setName("Agent Chat");
    setToolTipText("A chat with Qwen Code or Gemini CLI");
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
    mode.setRenderer(PlainText.renderer());
    mode.setToolTipText("The agent's mode: whether it asks before it edits or runs a tool");
    choices.add(modeLabel);
    choices.add(mode);
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
    log.setText(EMPTY_LOG);
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
    input.getInputMap().put(KeyStroke.getKeyStroke(KeyEvent.VK_TAB, 0), "complete");
    input
        .getActionMap()
        .put(
            "complete",
            new AbstractAction() {
              private static final long serialVersionUID = 1L;

              @Override
              public void actionPerformed(ActionEvent e) {
                complete();
              }
            });
    input.getDocument().addDocumentListener(new CommandHint());
    foot.add(commandHint, BorderLayout.NORTH);
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
    mode.addActionListener(e -> modeChosen());
  }

  @Override
  protected void componentOpened() {
    ChatService.getDefault().addListener(listener);
    ChatService.getDefault().start();
  }

  @Override
  protected void componentClosed() {
    ChatService.getDefault().removeListener(listener);
    ChatService.getDefault().windowClosed();
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
        shown == null ? "" : shown.status().conversation().map(Conversation::modelName).orElse("");
    if (!showingModel && chosen instanceof String id && !id.isBlank() && !id.equals(current)) {
      ChatService.getDefault().setModel(id.strip());
    }
  }

  private void modeChosen() {
    Object chosen = mode.getSelectedItem();
    String current =
        shown == null
            ? ""
            : shown.status().conversation().map(Conversation::approvalMode).orElse("");
    if (!showingModel && chosen instanceof String id && !id.equals(current)) {
      ChatService.getDefault().setMode(id);
    }
  }

  /** The agent's slash commands that start with what the input holds, when it is a command. */
  private List<AcpIdeConnection.Command> matchingCommands() {
    String text = input.getText();
    if (shown == null || !text.startsWith("/") || text.chars().anyMatch(Character::isWhitespace)) {
      return List.of();
    }
    String typed = text.substring(1);
    return shown.commands().stream().filter(c -> c.name().startsWith(typed)).toList();
  }

  /** Tab takes the first matching slash command; elsewhere it is a tab. */
  private void complete() {
    List<AcpIdeConnection.Command> matching = matchingCommands();
    if (matching.isEmpty()) {
      input.replaceSelection("\t");
    } else {
      input.setText("/" + matching.get(0).name() + " ");
    }
  }

  private void showCommandHint() {
    List<AcpIdeConnection.Command> matching = matchingCommands();
    StringBuilder hint = new StringBuilder();
    for (AcpIdeConnection.Command c :
        matching.subList(0, Math.min(COMMANDS_SHOWN, matching.size()))) {
      hint.append(hint.length() == 0 ? "" : "   ").append('/').append(c.name());
    }
    commandHint.setText(
        matching.isEmpty()
            ? " "
            : hint
                + (matching.size() > COMMANDS_SHOWN ? "   \u2026" : "")
                + "   (Tab: /"
                + matching.get(0).name()
                + ")");
    commandHint.setToolTipText(matching.isEmpty() ? null : matching.get(0).description());
  }

  /** Lists the workspace's sessions under the button; choosing one attaches to it. */
  private void pickSession() {
    ChatService.getDefault()
        .sessions(
            list -> {
              JPopupMenu menu = new JPopupMenu();
              menu.setName("companion4j.chat.sessionMenu");
              String current = shown == null ? "" : shown.status().sessionId();
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
      for (int i = 0; i < rendered.size(); i++) {
        if (rendered.get(i) instanceof Entry.Thought t && t.id().equals(id)) {
          replaceEntry(i, t);
        }
      }
    }
  }

  private void render(ChatView view) {
    shown = view;
    setName(view.title());
    DaemonChat.Status status = view.status();
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
            : view.acp()
                ? "The agent ("
                    + view.agent()
                    + ") runs on this machine in "
                    + status.workspace()
                    + "; it reads the open editors' text, and its writes come to NetBeans' diff"
                    + " view for review unless its mode lets it edit."
                : "The agent runs on "
                    + status.daemon()
                    + " in "
                    + status.workspace()
                    + ": that host's files, tools and credentials, not this machine's.");
    boolean live = c != null && c.state() == Conversation.State.CONNECTED;
    // A prompt sent during a turn waits in the daemon's queue; an ACP agent would fail it.
    send.setEnabled(live && !(view.acp() && c.turnRunning()));
    cancel.setEnabled(live && c.turnRunning());
    sessions.setEnabled(!status.daemon().isEmpty() || (view.acp() && c != null));
    showModels(status, c);
    showModes(view, c);
    showCommandHint();
    showLog(c);
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

  /** The agent's modes, and the session's, on the ACP path; hidden on the daemon path. */
  private void showModes(ChatView view, Conversation c) {
    modeLabel.setVisible(view.acp());
    mode.setVisible(view.acp());
    showingModel = true;
    try {
      List<String> ids = view.modes().stream().map(AcpIdeConnection.Mode::id).toList();
      List<String> offered = new ArrayList<>();
      for (int i = 0; i < mode.getItemCount(); i++) {
        offered.add(mode.getItemAt(i));
      }
      if (!offered.equals(ids)) {
        mode.removeAllItems();
        ids.forEach(mode::addItem);
      }
      mode.setSelectedItem(c == null ? null : c.approvalMode());
      mode.setEnabled(c != null && c.state() == Conversation.State.CONNECTED);
    } finally {
      showingModel = false;
    }
  }

  /**
   * Brings the log to the conversation: entries that differ from what is shown are re-rendered, new
   * ones appended; the whole log only for another conversation.
   */
  private void showLog(Conversation c) {
    List<Entry> entries = c == null ? List.of() : c.entries();
    boolean another =
        entries.size() < rendered.size()
            || (!rendered.isEmpty() && !sameEntry(rendered.get(0), entries.get(0)));
    if (another) {
      // A document of its own: text set into the old one would keep its emptied blocks.
      log.setDocument(log.getEditorKit().createDefaultDocument());
      log.setText(EMPTY_LOG);
      rendered.clear();
      renderedPlan = List.of();
    }
    HTMLDocument doc = (HTMLDocument) log.getDocument();
    for (int i = 0; i < rendered.size(); i++) {
      if (!rendered.get(i).equals(entries.get(i))) {
        replaceEntry(i, entries.get(i));
      }
    }
    if (entries.size() > rendered.size()) {
      StringBuilder added = new StringBuilder();
      for (int i = rendered.size(); i < entries.size(); i++) {
        added.append(entryBlock(i, entries.get(i)));
        rendered.add(entries.get(i));
      }
      change(() -> doc.insertBeforeEnd(doc.getElement("entries"), added.toString()));
    }
    List<PlanEntry> plan = c == null ? List.of() : c.plan();
    if (!plan.equals(renderedPlan)) {
      renderedPlan = plan;
      change(() -> doc.setOuterHTML(doc.getElement("plan"), planHtml(plan)));
    }
    log.setCaretPosition(doc.getLength());
  }

  /** Whether two entries are the same one, perhaps at two moments. */
  private static boolean sameEntry(Entry a, Entry b) {
    return a.getClass() == b.getClass() && a.id().equals(b.id());
  }

  private void replaceEntry(int index, Entry entry) {
    rendered.set(index, entry);
    HTMLDocument doc = (HTMLDocument) log.getDocument();
    Element shownEntry = doc.getElement("e" + index);
    change(() -> doc.setOuterHTML(shownEntry, entryBlock(index, entry)));
  }

  private String entryBlock(int index, Entry entry) {
    return "<div id='e" + index + "'>" + entryHtml(entry) + "</div>";
  }

  private static String planHtml(List<PlanEntry> plan) {
    StringBuilder html = new StringBuilder("<div id='plan'>");
    if (!plan.isEmpty()) {
      html.append("<p><b>Plan</b></p><ul>");
      for (PlanEntry p : plan) {
        html.append("<li>")
            .append(planMark(p.status()))
            .append(' ')
            .append(escape(p.content()))
            .append("</li>");
      }
      html.append("</ul>");
    }
    return html.append("</div>").toString();
  }

  /** A change to the log's document, which never fails for HTML made here. */
  private static void change(HtmlChange change) {
    try {
      change.run();
    } catch (BadLocationException | IOException e) {
      throw new IllegalStateException("the chat log could not be updated", e);
    }
  }

  private interface HtmlChange {
    void run() throws BadLocationException, IOException;
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
            JComponent card = p.questions().isEmpty() ? permissionCard(p) : questionCard(p);
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
      JButton answer = optionButton(option);
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

  private static JButton optionButton(PermissionOption option) {
    JButton button =
        named(PlainText.button(option.name()), "companion4j.chat.option:" + option.optionId());
    button.putClientProperty("kind", option.kind());
    return button;
  }

  /**
   * The agent's questions: each with its options (check boxes where it takes several) and a field
   * for the user's own answer, which for a single choice is the answer when filled. The submitting
   * option sends one answer per question; the agent's other options (Cancel) decline.
   */
  private JComponent questionCard(Conversation.PendingPermission p) {
    JPanel card =
        named(new JPanel(new BorderLayout()), "companion4j.chat.permission:" + p.requestId());
    card.setBorder(BorderFactory.createTitledBorder("The agent asks"));
    JPanel asked = new JPanel();
    asked.setLayout(new BoxLayout(asked, BoxLayout.Y_AXIS));
    List<Supplier<String>> answers = new ArrayList<>();
    for (int i = 0; i < p.questions().size(); i++) {
      Question q = p.questions().get(i);
      String name = "companion4j.chat.question." + i;
      asked.add(PlainText.label(q.header() + ": " + q.question()));
      ButtonGroup single = new ButtonGroup();
      List<AbstractButton> choices = new ArrayList<>();
      for (int n = 0; n < q.options().size(); n++) {
        QuestionOption o = q.options().get(n);
        String text =
            o.description().isEmpty() ? o.label() : o.label() + " \u2014 " + o.description();
        AbstractButton choice =
            named(
                PlainText.withText(q.multiSelect() ? new JCheckBox() : new JRadioButton(), text),
                name + "." + n);
        choice.putClientProperty("label", o.label());
        if (!q.multiSelect()) {
          single.add(choice);
        }
        choices.add(choice);
        asked.add(choice);
      }
      JTextField own = named(new JTextField(30), name + ".own");
      own.setToolTipText(q.multiSelect() ? "Add your own" : "Or type your own answer");
      asked.add(own);
      answers.add(
          () -> {
            List<String> picked = new ArrayList<>();
            for (AbstractButton c : choices) {
              if (c.isSelected()) {
                picked.add((String) c.getClientProperty("label"));
              }
            }
            String typed = own.getText().strip();
            if (!q.multiSelect()) {
              return !typed.isEmpty() ? typed : picked.isEmpty() ? "" : picked.get(0);
            }
            if (!typed.isEmpty()) {
              picked.add(typed);
            }
            return String.join(", ", picked);
          });
    }
    card.add(asked, BorderLayout.CENTER);
    JLabel missing =
        named(PlainText.label("Answer each question first."), "companion4j.chat.question.missing");
    missing.setVisible(false);
    JPanel buttons = new JPanel(new FlowLayout(FlowLayout.LEFT));
    for (PermissionOption option : p.options()) {
      JButton button = optionButton(option);
      button.addActionListener(
          e -> {
            List<String> given = answers.stream().map(Supplier::get).toList();
            boolean submits = "allow_once".equals(option.kind());
            missing.setVisible(submits && given.contains(""));
            if (missing.isVisible()) {
              return;
            }
            // One answer per request: the card goes once the agent has it.
            for (Component b : buttons.getComponents()) {
              b.setEnabled(false);
            }
            if (submits) {
              ChatService.getDefault().answerQuestions(p.requestId(), given);
            } else {
              ChatService.getDefault().answer(p.requestId(), option.optionId());
            }
          });
      buttons.add(button);
    }
    buttons.add(missing);
    card.add(buttons, BorderLayout.SOUTH);
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

  /** Offers the agent's slash commands as the user types one. */
  private final class CommandHint implements DocumentListener {
    @Override
    public void insertUpdate(DocumentEvent e) {
      showCommandHint();
    }

    @Override
    public void removeUpdate(DocumentEvent e) {
      showCommandHint();
    }

    @Override
    public void changedUpdate(DocumentEvent e) {
      showCommandHint();
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
