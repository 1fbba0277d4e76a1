package dev.companion4j.eclipse.chat;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.StyleRange;
import org.eclipse.swt.custom.StyledText;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.layout.RowLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Menu;
import org.eclipse.swt.widgets.MenuItem;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.IActionBars;
import org.eclipse.ui.actions.ActionFactory;
import org.eclipse.ui.part.ViewPart;

/**
 * The Agent Chat view: a conversation with an ACP agent the chat starts, or with the {@code qwen
 * serve} daemon, on the shared conversation model ({@link ChatService} owns it). The log is a
 * StyledText whose text is the model's words as data (Markdown turned into style ranges, never
 * markup); it renders incrementally: an update replaces only the entries from the first that
 * changed, which while an answer streams is that answer alone. A permission request is a card with
 * the agent's own options; the agent's questions are a card to answer. A write the agent makes
 * comes to the compare editor for review (the companion's proposal, through {@link EditorFiles}).
 *
 * <p>Everything here runs on the UI thread.
 */
public final class ChatPart extends ViewPart {
  public static final String ID = "dev.companion4j.eclipse.chat.ChatPart";

  /** The widgets' names (their {@code name} data), for accessibility tools and the tests. */
  static final String LOG = "companion4j.chat.log";

  static final String INPUT = "companion4j.chat.input";
  static final String CANCEL = "companion4j.chat.cancel";

  /** How many of the agent's slash commands the hint under the input lists. */
  private static final int COMMANDS_SHOWN = 6;

  private Label state;
  private Label where;
  private Button fresh;
  private Button sessions;
  private Combo model;
  private Label modeLabel;
  private Combo mode;
  private StyledText log;
  private Composite permissions;
  private Label commandHint;
  private Text input;
  private Button send;
  private Button cancel;
  private Font code;

  /** The cards shown, by request id. */
  private final Map<String, Composite> cards = new LinkedHashMap<>();

  /** The entries the log shows, and where each starts in it. */
  private final List<Entry> rendered = new ArrayList<>();

  private final List<Integer> offsets = new ArrayList<>();
  private List<PlanEntry> renderedPlan = List.of();
  private ChatView shown;
  private boolean showingModel;

  private final Consumer<ChatView> listener = this::render;
  private final Consumer<String> failure = this::failed;

  @Override
  public void createPartControl(Composite parent) {
    code = JFaceResources.getTextFont();
    parent.setLayout(new GridLayout(1, false));

    state = new Label(parent, SWT.NONE);
    state.setText("Connecting\u2026");
    state.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));

    Composite choices = new Composite(parent, SWT.NONE);
    choices.setLayout(new RowLayout(SWT.HORIZONTAL));
    choices.setLayoutData(wrapping());
    fresh = button(choices, "New session");
    fresh.addListener(SWT.Selection, e -> ChatService.getDefault().newSession());
    sessions = button(choices, "Sessions\u2026");
    sessions.addListener(SWT.Selection, e -> pickSession());
    new Label(choices, SWT.NONE).setText("Model:");
    model = new Combo(choices, SWT.DROP_DOWN);
    model.setToolTipText("The model of this session; type another one's id and press Enter");
    model.addListener(SWT.Selection, e -> modelChosen());
    model.addListener(SWT.DefaultSelection, e -> modelChosen());
    modeLabel = new Label(choices, SWT.NONE);
    modeLabel.setText("Mode:");
    mode = new Combo(choices, SWT.DROP_DOWN | SWT.READ_ONLY);
    mode.setToolTipText("The agent's mode: whether it asks before it edits or runs a tool");
    mode.addListener(SWT.Selection, e -> modeChosen());

    where = new Label(parent, SWT.WRAP);
    where.setLayoutData(wrapping());

    log = new StyledText(parent, SWT.BORDER | SWT.MULTI | SWT.WRAP | SWT.V_SCROLL | SWT.READ_ONLY);
    GridData logData = new GridData(SWT.FILL, SWT.FILL, true, true);
    // A few lines at least, however much the header and the cards take.
    logData.minimumHeight = log.getLineHeight() * 4;
    log.setLayoutData(logData);
    log.setMargins(6, 4, 6, 4);
    log.setData("name", LOG);
    // Edit > Copy and Select All (and their keys) act on the log when the view is active.
    IActionBars bars = getViewSite().getActionBars();
    bars.setGlobalActionHandler(ActionFactory.COPY.getId(), action(log::copy));
    bars.setGlobalActionHandler(ActionFactory.SELECT_ALL.getId(), action(log::selectAll));

    permissions = new Composite(parent, SWT.NONE);
    GridLayout cardsLayout = new GridLayout(1, false);
    cardsLayout.marginWidth = 0;
    cardsLayout.marginHeight = 0;
    permissions.setLayout(cardsLayout);
    permissions.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));

    commandHint = new Label(parent, SWT.NONE);
    commandHint.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
    input = new Text(parent, SWT.BORDER | SWT.MULTI | SWT.WRAP | SWT.V_SCROLL);
    GridData inputData = new GridData(SWT.FILL, SWT.CENTER, true, false);
    inputData.heightHint = input.getLineHeight() * 3;
    input.setLayoutData(inputData);
    input.setData("name", INPUT);
    input.setToolTipText("Ctrl+Enter sends; Tab completes a slash command");
    input.addListener(
        SWT.KeyDown,
        e -> {
          if ((e.keyCode == SWT.CR || e.keyCode == SWT.KEYPAD_CR)
              && (e.stateMask & SWT.MOD1) != 0) {
            e.doit = false;
            send();
          }
        });
    input.addListener(
        SWT.Traverse,
        e -> {
          if (e.detail == SWT.TRAVERSE_TAB_NEXT && !matchingCommands().isEmpty()) {
            e.doit = false;
            input.setText("/" + matchingCommands().get(0).name() + " ");
            input.setSelection(input.getCharCount());
          }
        });
    input.addListener(SWT.Modify, e -> showCommandHint());

    Composite buttons = new Composite(parent, SWT.NONE);
    buttons.setLayout(new RowLayout(SWT.HORIZONTAL));
    buttons.setLayoutData(new GridData(SWT.END, SWT.CENTER, true, false));
    cancel = button(buttons, "Cancel");
    cancel.setData("name", CANCEL);
    cancel.setEnabled(false);
    cancel.addListener(SWT.Selection, e -> ChatService.getDefault().cancel());
    send = button(buttons, "Send");
    send.addListener(SWT.Selection, e -> send());

    ChatService.getDefault().addListener(listener, failure);
    ChatService.getDefault().start();
  }

  @Override
  public void setFocus() {
    input.setFocus();
  }

  @Override
  public void dispose() {
    ChatService.getDefault().removeListener(listener, failure);
    ChatService.getDefault().viewClosed();
    super.dispose();
  }

  /**
   * A row as wide as the view, never wider: its own width would widen the view's grid past the
   * view, cutting off what is right of it; so it wraps.
   */
  private static GridData wrapping() {
    GridData data = new GridData(SWT.FILL, SWT.CENTER, true, false);
    data.widthHint = 1;
    return data;
  }

  private static Action action(Runnable run) {
    return new Action() {
      @Override
      public void run() {
        run.run();
      }
    };
  }

  private static Button button(Composite parent, String text) {
    Button b = new Button(parent, SWT.PUSH);
    b.setText(text);
    return b;
  }

  /** A text from the agent or the daemon as a widget's label: an '&' is itself, not a mnemonic. */
  private static String plain(String text) {
    return text.replace("&", "&&");
  }

  private void send() {
    String text = input.getText().strip();
    if (text.isEmpty() || !send.isEnabled()) {
      return;
    }
    input.setText("");
    ChatService.getDefault().prompt(text);
  }

  private void failed(String why) {
    if (!state.isDisposed()) {
      state.setText(plain("Chat: " + why));
      state.getParent().layout(true, true);
    }
  }

  private void modelChosen() {
    String id = model.getText().strip();
    String current =
        shown == null ? "" : shown.status().conversation().map(Conversation::modelName).orElse("");
    if (!showingModel && !id.isEmpty() && !id.equals(current)) {
      ChatService.getDefault().setModel(id);
    }
  }

  private void modeChosen() {
    String id = mode.getText();
    String current =
        shown == null
            ? ""
            : shown.status().conversation().map(Conversation::approvalMode).orElse("");
    if (!showingModel && !id.isEmpty() && !id.equals(current)) {
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

  private void showCommandHint() {
    List<AcpIdeConnection.Command> matching = matchingCommands();
    StringBuilder hint = new StringBuilder();
    for (AcpIdeConnection.Command c :
        matching.subList(0, Math.min(COMMANDS_SHOWN, matching.size()))) {
      hint.append(hint.length() == 0 ? "" : "   ").append('/').append(c.name());
    }
    commandHint.setText(
        matching.isEmpty()
            ? ""
            : plain(
                hint
                    + (matching.size() > COMMANDS_SHOWN ? "   \u2026" : "")
                    + "   (Tab: /"
                    + matching.get(0).name()
                    + ")"));
    commandHint.setToolTipText(matching.isEmpty() ? null : plain(matching.get(0).description()));
  }

  /** Lists the workspace's sessions under the button; choosing one attaches to it. */
  private void pickSession() {
    ChatService.getDefault()
        .sessions(
            list -> {
              if (sessions.isDisposed()) {
                return;
              }
              Menu menu = new Menu(sessions);
              String current = shown == null ? "" : shown.status().sessionId();
              for (SessionSummary s : list) {
                String title =
                    s.displayName() == null || s.displayName().isBlank()
                        ? s.sessionId()
                        : s.displayName();
                String attached =
                    s.clientCount() > 0 ? " \u00b7 " + s.clientCount() + " attached" : "";
                MenuItem item = new MenuItem(menu, SWT.PUSH);
                item.setText(
                    plain(title + attached + (s.sessionId().equals(current) ? " (this one)" : "")));
                item.setEnabled(!s.sessionId().equals(current));
                item.addListener(
                    SWT.Selection, e -> ChatService.getDefault().attach(s.sessionId()));
              }
              if (list.isEmpty()) {
                MenuItem none = new MenuItem(menu, SWT.PUSH);
                none.setText("No sessions in this workspace");
                none.setEnabled(false);
              }
              var at = sessions.toDisplay(0, sessions.getSize().y);
              menu.setLocation(at);
              menu.setVisible(true);
            });
  }

  private void render(ChatView view) {
    if (log == null || log.isDisposed()) {
      return;
    }
    shown = view;
    setPartName(view.title());
    DaemonChat.Status status = view.status();
    Conversation c = status.conversation().orElse(null);
    state.setText(plain(stateText(status, c)));
    fresh.setText(
        c != null
                && (c.state() == Conversation.State.DIED || c.state() == Conversation.State.CLOSED)
            ? "Reconnect"
            : "New session");
    where.setText(plain(whereText(view)));
    boolean live = c != null && c.state() == Conversation.State.CONNECTED;
    boolean connecting = c == null && status.problem().isEmpty();
    // While the session opens a prompt waits for it; an ACP agent would fail one during a turn.
    send.setEnabled(connecting || (live && (!view.acp() || !c.turnRunning())));
    cancel.setEnabled(live && c.turnRunning());
    sessions.setEnabled(!status.daemon().isEmpty() || (view.acp() && c != null));
    showModels(status, c);
    showModes(view, c);
    showCommandHint();
    showLog(c);
    showPermissions(c == null ? List.of() : c.permissions());
    state.getParent().layout(true, true);
  }

  static String stateText(DaemonChat.Status status, Conversation c) {
    if (c == null) {
      return status.problem().isEmpty() ? "Connecting\u2026" : "Not connected: " + status.problem();
    }
    String text;
    switch (c.state()) {
      case CONNECTED:
        text = c.turnRunning() ? "Working\u2026" : "Connected";
        break;
      case RECONNECTING:
        text = "Reconnecting\u2026";
        break;
      case DIED:
        text = "Disconnected: " + c.stateReason();
        break;
      default:
        text = "Session closed";
    }
    return text + (c.approvalMode().isEmpty() ? "" : " \u00b7 approval: " + c.approvalMode());
  }

  private static String whereText(ChatView view) {
    DaemonChat.Status status = view.status();
    if (status.workspace().isEmpty()) {
      return "";
    }
    return view.acp()
        ? "The agent ("
            + view.agent()
            + ") runs on this machine in "
            + status.workspace()
            + "; it reads the open editors' text, and its writes come to the compare editor for"
            + " review unless its mode lets it edit."
        : "The agent runs on "
            + status.daemon()
            + " in "
            + status.workspace()
            + ": that host's files, tools and credentials, not this machine's.";
  }

  /** The models to pick from, and the one in use, unless the user is typing one. */
  private void showModels(DaemonChat.Status status, Conversation c) {
    showingModel = true;
    try {
      if (!Arrays.asList(model.getItems()).equals(status.models())) {
        model.setItems(status.models().toArray(String[]::new));
      }
      if (!model.isFocusControl()) {
        model.setText(c == null ? "" : c.modelName());
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
      if (!Arrays.asList(mode.getItems()).equals(ids)) {
        mode.setItems(ids.toArray(String[]::new));
      }
      int at = c == null ? -1 : ids.indexOf(c.approvalMode());
      if (at >= 0) {
        mode.select(at);
      } else {
        mode.deselectAll();
      }
      mode.setEnabled(c != null && c.state() == Conversation.State.CONNECTED);
    } finally {
      showingModel = false;
    }
  }

  /**
   * Brings the log to the conversation: from the first entry that differs from what is shown, the
   * entries are rendered again and the rest of the log replaced; the whole log only for another
   * conversation. The plan follows the entries.
   */
  private void showLog(Conversation c) {
    List<Entry> entries = c == null ? List.of() : c.entries();
    List<PlanEntry> plan = c == null ? List.of() : c.plan();
    int first = 0;
    while (first < rendered.size()
        && first < entries.size()
        && rendered.get(first).equals(entries.get(first))) {
      first++;
    }
    if (first == rendered.size() && first == entries.size() && plan.equals(renderedPlan)) {
      return;
    }
    int from = first < offsets.size() ? offsets.get(first) : log.getCharCount();
    while (rendered.size() > first) {
      rendered.remove(rendered.size() - 1);
      offsets.remove(offsets.size() - 1);
    }
    StringBuilder text = new StringBuilder();
    List<StyleRange> styles = new ArrayList<>();
    for (int i = first; i < entries.size(); i++) {
      offsets.add(from + text.length());
      rendered.add(entries.get(i));
      append(text, styles, from, entries.get(i));
    }
    appendPlan(text, styles, from, plan);
    renderedPlan = plan;
    log.replaceTextRange(from, log.getCharCount() - from, text.toString());
    log.replaceStyleRanges(from, text.length(), styles.toArray(StyleRange[]::new));
    log.setTopIndex(log.getLineCount() - 1);
  }

  /** One entry as text and styles, its styles' offsets counted from {@code base}. */
  private void append(StringBuilder text, List<StyleRange> styles, int base, Entry e) {
    if (e instanceof Entry.UserMessage) {
      styled(text, styles, base, "You: ", SWT.BOLD);
      text.append(((Entry.UserMessage) e).text()).append("\n\n");
    } else if (e instanceof Entry.AssistantMessage) {
      Entry.AssistantMessage m = (Entry.AssistantMessage) e;
      Markdown.Styled md = Markdown.render(m.text());
      int start = base + text.length();
      text.append(md.text());
      for (Markdown.Span s : md.spans()) {
        styles.add(style(start + s.start(), s.length(), s.style()));
      }
      text.append(m.streaming() ? " \u2026\n\n" : "\n\n");
    } else if (e instanceof Entry.Thought || e instanceof Entry.Notice) {
      styled(text, styles, base, aside(e), SWT.ITALIC);
      text.append("\n\n");
    } else if (e instanceof Entry.ToolCall) {
      Entry.ToolCall t = (Entry.ToolCall) e;
      text.append("\u2699 ");
      styled(text, styles, base, t.title(), SWT.BOLD);
      if (!t.locations().isEmpty()) {
        text.append(' ').append(String.join(", ", t.locations()));
      }
      text.append(" \u2014 ");
      styled(text, styles, base, t.status().replace('_', ' '), SWT.ITALIC);
      text.append("\n\n");
    } else {
      throw new IllegalArgumentException("an entry this view cannot show: " + e);
    }
  }

  /** A thought or a notice: one italic line, a thought still coming marked so. */
  private static String aside(Entry e) {
    if (e instanceof Entry.Thought) {
      Entry.Thought t = (Entry.Thought) e;
      return "Thought" + (t.streaming() ? " \u2026" : "") + ": " + t.text();
    }
    Entry.Notice n = (Entry.Notice) e;
    return n.level().name().toLowerCase(Locale.ROOT) + ": " + n.text();
  }

  private void appendPlan(
      StringBuilder text, List<StyleRange> styles, int base, List<PlanEntry> plan) {
    if (plan.isEmpty()) {
      return;
    }
    styled(text, styles, base, "Plan", SWT.BOLD);
    text.append('\n');
    for (PlanEntry p : plan) {
      text.append(planMark(p.status())).append(' ').append(p.content()).append('\n');
    }
  }

  private static void styled(
      StringBuilder text, List<StyleRange> styles, int base, String part, int fontStyle) {
    StyleRange range = new StyleRange();
    range.start = base + text.length();
    range.length = part.length();
    range.fontStyle = fontStyle;
    styles.add(range);
    text.append(part);
  }

  private StyleRange style(int start, int length, Markdown.Style style) {
    StyleRange range = new StyleRange();
    range.start = start;
    range.length = length;
    switch (style) {
      case BOLD:
        range.fontStyle = SWT.BOLD;
        break;
      case ITALIC:
        range.fontStyle = SWT.ITALIC;
        break;
      case CODE:
        range.font = code;
        break;
      default:
        range.underline = true;
        range.underlineStyle = SWT.UNDERLINE_LINK;
    }
    return range;
  }

  private static String planMark(String status) {
    switch (status) {
      case "completed":
        return "\u2611";
      case "in_progress":
        return "\u25b6";
      default:
        return "\u2610";
    }
  }

  /** Adds a card for each new request and removes those no longer pending. */
  private void showPermissions(List<Conversation.PendingPermission> pending) {
    Set<String> ids = new HashSet<>();
    for (Conversation.PendingPermission p : pending) {
      ids.add(p.requestId());
      cards.computeIfAbsent(
          p.requestId(), id -> p.questions().isEmpty() ? permissionCard(p) : questionCard(p));
    }
    cards
        .entrySet()
        .removeIf(
            card -> {
              if (ids.contains(card.getKey())) {
                return false;
              }
              card.getValue().dispose();
              return true;
            });
  }

  private Group card(String title) {
    Group card = new Group(permissions, SWT.NONE);
    card.setText(plain(title));
    card.setLayout(new GridLayout(1, false));
    card.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
    return card;
  }

  private Composite permissionCard(Conversation.PendingPermission p) {
    Group card = card("The agent asks: " + p.title());
    List<String> touched = new ArrayList<>();
    for (FileDiff diff : p.diffs()) {
      touched.add((diff.oldText().isEmpty() ? "new file " : "changes ") + diff.path());
    }
    if (touched.isEmpty()) {
      touched.addAll(p.locations());
    }
    if (!touched.isEmpty()) {
      Label what = new Label(card, SWT.WRAP);
      what.setLayoutData(wrapping());
      what.setText(plain(String.join("\n", touched)));
    }
    Composite answers = new Composite(card, SWT.NONE);
    answers.setLayout(new RowLayout(SWT.HORIZONTAL));
    answers.setLayoutData(wrapping());
    for (PermissionOption option : p.options()) {
      Button answer = button(answers, plain(option.name()));
      answer.setData("kind", option.kind());
      answer.addListener(
          SWT.Selection,
          e -> {
            // One answer per request: the card goes once the agent has it.
            for (Control b : answers.getChildren()) {
              b.setEnabled(false);
            }
            ChatService.getDefault().answer(p.requestId(), option.optionId());
          });
    }
    return card;
  }

  /**
   * The agent's questions: each with its options (check boxes where it takes several) and a field
   * for the user's own answer, which for a single choice is the answer when filled. The submitting
   * option sends one answer per question; the agent's other options (Cancel) decline.
   */
  private Composite questionCard(Conversation.PendingPermission p) {
    Group card = card("The agent asks");
    List<Supplier<String>> answers = new ArrayList<>();
    for (Question q : p.questions()) {
      Label asked = new Label(card, SWT.WRAP);
      asked.setLayoutData(wrapping());
      asked.setText(plain(q.header() + ": " + q.question()));
      List<Button> choices = new ArrayList<>();
      Composite group = new Composite(card, SWT.NONE);
      group.setLayout(new RowLayout(SWT.VERTICAL));
      for (QuestionOption o : q.options()) {
        Button choice = new Button(group, q.multiSelect() ? SWT.CHECK : SWT.RADIO);
        choice.setText(
            plain(
                o.description().isEmpty() ? o.label() : o.label() + " \u2014 " + o.description()));
        choice.setData("label", o.label());
        choices.add(choice);
      }
      Text own = new Text(card, SWT.BORDER);
      own.setMessage(q.multiSelect() ? "Add your own" : "Or type your own answer");
      own.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
      answers.add(
          () -> {
            List<String> picked = new ArrayList<>();
            for (Button c : choices) {
              if (c.getSelection()) {
                picked.add((String) c.getData("label"));
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
    Composite buttons = new Composite(card, SWT.NONE);
    buttons.setLayout(new RowLayout(SWT.HORIZONTAL));
    buttons.setLayoutData(wrapping());
    Label missing = new Label(card, SWT.NONE);
    missing.setText("Answer each question first.");
    missing.setVisible(false);
    for (PermissionOption option : p.options()) {
      Button button = button(buttons, plain(option.name()));
      button.addListener(
          SWT.Selection,
          e -> {
            List<String> given = answers.stream().map(Supplier::get).toList();
            boolean submits = "allow_once".equals(option.kind());
            missing.setVisible(submits && given.contains(""));
            if (missing.isVisible()) {
              return;
            }
            for (Control b : buttons.getChildren()) {
              b.setEnabled(false);
            }
            if (submits) {
              ChatService.getDefault().answerQuestions(p.requestId(), given);
            } else {
              ChatService.getDefault().answer(p.requestId(), option.optionId());
            }
          });
    }
    return card;
  }
}
