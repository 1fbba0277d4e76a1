package dev.companion4j.netbeans;

import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.engine.discovery.DiscoveryTarget;
import java.awt.GridBagConstraints;
import java.awt.GridBagLayout;
import java.awt.Insets;
import java.beans.PropertyChangeListener;
import java.beans.PropertyChangeSupport;
import java.util.EnumSet;
import java.util.Set;
import javax.swing.BorderFactory;
import javax.swing.BoxLayout;
import javax.swing.ButtonGroup;
import javax.swing.JButton;
import javax.swing.JCheckBox;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JPasswordField;
import javax.swing.JRadioButton;
import javax.swing.JTextField;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;
import org.netbeans.spi.options.OptionsPanelController;
import org.openide.util.HelpCtx;
import org.openide.util.Lookup;

/**
 * Tools > Options > Miscellaneous > CLI Companion: which CLIs may find the IDE, a restart, and the
 * chat's path: an ACP agent the chat starts, or the {@code qwen serve} daemon and where to find it.
 */
@OptionsPanelController.SubRegistration(
    location = "Advanced",
    id = "Companion4J",
    displayName = "CLI Companion",
    keywords = "qwen gemini cli companion ide mode",
    keywordsCategory = "Advanced/Companion4J")
public final class CompanionOptionsPanelController extends OptionsPanelController {
  static final String QWEN_NAME = "companion4j.qwen";
  static final String GEMINI_NAME = "companion4j.gemini";
  static final String RESTART_NAME = "companion4j.restart";
  static final String ATTACH_NAME = "companion4j.daemonAttach";
  static final String SPAWN_NAME = "companion4j.daemonSpawn";
  static final String URL_NAME = "companion4j.daemonUrl";
  static final String TOKEN_NAME = "companion4j.daemonToken";
  static final String COMMAND_NAME = "companion4j.qwenCommand";
  static final String ACP_NAME = "companion4j.chatAcp";
  static final String AGENT_NAME = "companion4j.acpAgent";

  private final PropertyChangeSupport pcs = new PropertyChangeSupport(this);
  private JPanel panel;
  private JCheckBox qwen;
  private JCheckBox gemini;
  private JRadioButton acp;
  private JTextField agent;
  private JRadioButton attach;
  private JRadioButton spawn;
  private JTextField url;
  private JPasswordField token;
  private JTextField command;
  private boolean changed;

  /** Whether the token field was typed in: an untouched empty field keeps the saved token. */
  private boolean tokenEdited;

  @Override
  public void update() {
    component();
    Set<DiscoveryTarget> targets = CompanionSettings.targets();
    qwen.setSelected(targets.contains(DiscoveryTarget.QWEN_CODE));
    gemini.setSelected(targets.contains(DiscoveryTarget.GEMINI_CLI));
    DaemonChatSettings.Mode path = DaemonChatSettings.mode();
    acp.setSelected(path == DaemonChatSettings.Mode.ACP);
    attach.setSelected(path == DaemonChatSettings.Mode.ATTACH);
    spawn.setSelected(path == DaemonChatSettings.Mode.SPAWN);
    agent.setText(DaemonChatSettings.agent());
    url.setText(DaemonChatSettings.savedUrl());
    token.setText("");
    command.setText(DaemonChatSettings.qwenCommand());
    changed = false;
    tokenEdited = false;
  }

  @Override
  public void applyChanges() {
    if (!changed) {
      return;
    }
    Set<DiscoveryTarget> targets = selected();
    if (!targets.equals(CompanionSettings.targets())) {
      CompanionSettings.setTargets(targets);
      // Discovery files are chosen when the engine starts.
      CompanionService.getDefault().restart();
    }
    DaemonChatSettings.Mode mode =
        acp.isSelected()
            ? DaemonChatSettings.Mode.ACP
            : spawn.isSelected() ? DaemonChatSettings.Mode.SPAWN : DaemonChatSettings.Mode.ATTACH;
    boolean chatChanged =
        tokenEdited
            || mode != DaemonChatSettings.mode()
            || !url.getText().strip().equals(DaemonChatSettings.savedUrl())
            || !command.getText().strip().equals(DaemonChatSettings.qwenCommand())
            || !agent.getText().strip().equals(DaemonChatSettings.agent());
    if (chatChanged) {
      ChatService.getDefault()
          .settingsChanged(
              mode,
              url.getText(),
              tokenEdited ? token.getPassword() : null,
              command.getText(),
              agent.getText());
    }
    changed = false;
    tokenEdited = false;
  }

  @Override
  public void cancel() {
    changed = false;
  }

  @Override
  public boolean isValid() {
    return true;
  }

  @Override
  public boolean isChanged() {
    return changed;
  }

  @Override
  public JComponent getComponent(Lookup masterLookup) {
    return component();
  }

  @Override
  public HelpCtx getHelpCtx() {
    return HelpCtx.DEFAULT_HELP;
  }

  @Override
  public void addPropertyChangeListener(PropertyChangeListener l) {
    pcs.addPropertyChangeListener(l);
  }

  @Override
  public void removePropertyChangeListener(PropertyChangeListener l) {
    pcs.removePropertyChangeListener(l);
  }

  private Set<DiscoveryTarget> selected() {
    Set<DiscoveryTarget> targets = EnumSet.noneOf(DiscoveryTarget.class);
    if (qwen.isSelected()) {
      targets.add(DiscoveryTarget.QWEN_CODE);
    }
    if (gemini.isSelected()) {
      targets.add(DiscoveryTarget.GEMINI_CLI);
    }
    return targets;
  }

  private JPanel component() {
    if (panel != null) {
      return panel;
    }
    panel = new JPanel();
    panel.setLayout(new BoxLayout(panel, BoxLayout.Y_AXIS));
    panel.setBorder(BorderFactory.createEmptyBorder(8, 8, 8, 8));
    panel.add(
        new JLabel("Let these CLIs, started in a terminal inside an open project, find this IDE:"));
    qwen = new JCheckBox("Qwen Code (qwen)");
    qwen.setName(QWEN_NAME);
    gemini = new JCheckBox("Gemini CLI (gemini)");
    gemini.setName(GEMINI_NAME);
    for (JCheckBox box : new JCheckBox[] {qwen, gemini}) {
      box.addActionListener(e -> markChanged());
      panel.add(box);
    }
    JButton restart = new JButton("Restart Companion");
    restart.setName(RESTART_NAME);
    restart.setToolTipText(
        "Stop the companion, disconnecting the CLIs, and start it on a new port");
    restart.addActionListener(e -> CompanionService.getDefault().restart());
    panel.add(javax.swing.Box.createVerticalStrut(8));
    panel.add(restart);
    panel.add(javax.swing.Box.createVerticalStrut(16));
    panel.add(chatSection());
    return panel;
  }

  /**
   * Window > Agent Chat: an ACP agent, or a daemon at an address, or one started for the project.
   */
  private JPanel chatSection() {
    JPanel chat = new JPanel(new GridBagLayout());
    chat.setAlignmentX(JComponent.LEFT_ALIGNMENT);
    chat.setBorder(BorderFactory.createTitledBorder("Chat"));
    acp =
        named(
            new JRadioButton(
                "Start an ACP agent in the main project, stopped with the chat window"),
            ACP_NAME);
    agent = named(new JTextField(32), AGENT_NAME);
    agent.setToolTipText(
        "qwen or gemini (run with --acp from the IDE's PATH), or an ACP agent's command line");
    attach = named(new JRadioButton("Attach to a running daemon"), ATTACH_NAME);
    spawn =
        named(
            new JRadioButton("Start qwen serve for the main project, stopped with the IDE"),
            SPAWN_NAME);
    ButtonGroup modes = new ButtonGroup();
    modes.add(acp);
    modes.add(attach);
    modes.add(spawn);
    url = named(new JTextField(32), URL_NAME);
    url.setToolTipText("e.g. http://127.0.0.1:4170 (default: $" + DaemonSource.URL_VARIABLE + ")");
    token = named(new JPasswordField(32), TOKEN_NAME);
    token.setToolTipText(
        "The daemon's bearer token, kept in the IDE's keyring; left empty, a saved one stays");
    command = named(new JTextField(32), COMMAND_NAME);
    command.setToolTipText("qwen on the IDE's PATH, or the full path of the qwen command");
    GridBagConstraints at = new GridBagConstraints();
    at.anchor = GridBagConstraints.WEST;
    wide(chat, at, 0, acp);
    row(chat, at, 1, "Agent:", agent);
    wide(chat, at, 2, attach);
    row(chat, at, 3, "Address:", url);
    row(chat, at, 4, "Token:", token);
    wide(chat, at, 5, spawn);
    row(chat, at, 6, "qwen command:", command);
    wide(
        chat,
        at,
        7,
        new JLabel(
            "<html>The token is kept in the IDE's keyring. With no address here, $"
                + DaemonSource.URL_VARIABLE
                + " and $"
                + DaemonSource.TOKEN_VARIABLE
                + " are used.</html>"));
    for (JRadioButton mode : new JRadioButton[] {acp, attach, spawn}) {
      mode.addActionListener(e -> markChanged());
    }
    for (JTextField field : new JTextField[] {agent, url, command}) {
      field.getDocument().addDocumentListener(new Edits(false));
    }
    token.getDocument().addDocumentListener(new Edits(true));
    return chat;
  }

  /** A line across both columns at row {@code y}. */
  private static void wide(JPanel chat, GridBagConstraints at, int y, JComponent line) {
    at.gridx = 0;
    at.gridy = y;
    at.gridwidth = 2;
    at.insets = new Insets(2, 4, 2, 4);
    chat.add(line, at);
    at.gridwidth = 1;
  }

  /** An indented label and its field at row {@code y}. */
  private static void row(
      JPanel chat, GridBagConstraints at, int y, String label, JComponent field) {
    at.gridy = y;
    at.gridx = 0;
    at.insets = new Insets(2, 28, 2, 4);
    chat.add(new JLabel(label), at);
    at.gridx = 1;
    at.insets = new Insets(2, 4, 2, 4);
    chat.add(field, at);
  }

  private void markChanged() {
    boolean was = changed;
    changed = true;
    pcs.firePropertyChange(OptionsPanelController.PROP_CHANGED, was, true);
  }

  private static <T extends JComponent> T named(T component, String name) {
    component.setName(name);
    return component;
  }

  /** Marks the panel changed on any edit; in the token field, also that the token was typed in. */
  private final class Edits implements DocumentListener {
    private final boolean tokenField;

    Edits(boolean tokenField) {
      this.tokenField = tokenField;
    }

    @Override
    public void insertUpdate(DocumentEvent e) {
      edited();
    }

    @Override
    public void removeUpdate(DocumentEvent e) {
      edited();
    }

    @Override
    public void changedUpdate(DocumentEvent e) {
      edited();
    }

    private void edited() {
      tokenEdited |= tokenField;
      markChanged();
    }
  }
}
