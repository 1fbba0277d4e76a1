package dev.companion4j.netbeans;

import dev.companion4j.testkit.AskUserQuestion;
import java.awt.Container;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.swing.AbstractButton;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JTextArea;
import javax.swing.JTextField;
import javax.swing.KeyStroke;
import javax.swing.text.Element;
import javax.swing.text.StyledDocument;
import javax.swing.text.html.HTMLDocument;
import junit.framework.Test;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.filesystems.FileUtil;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * Boots a real NetBeans platform (GUI, under Xvfb) with the companion module and chats in Window
 * &gt; Agent Chat on the ACP path with the real {@code qwen --acp} of Qwen Code 0.24.4, its model a
 * scripted fake: writes are reviewed in NetBeans' diff view, reads see the editor's unsaved text.
 * The tests run in the order of {@link #suite()} and share the IDE, the agent and the chat.
 */
public class NetBeansAcpChatIT extends NbTestCase {
  static final Duration WAIT = Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 90));

  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));

  /** The project the agent works in, under a folder of its own per agent. */
  private static Path workspace;

  /** What the fake model writes for {@code [[write PATH]]}. */
  private static final String WRITTEN = "written by the fake model\n";

  private static final String CONNECTED = "Connected \u00b7 approval: default";

  private static AgentPeer peer;
  private static TopComponent chat;

  public NetBeansAcpChatIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansAcpChatIT.class)
        .addTest(
            "testTheOptionsPickTheAgentAndAPromptStreamsAnAnswer",
            "testAnAcceptedWriteHoldsTheUsersEdit",
            "testARejectedWriteLeavesTheFileAndFailsTheCall",
            "testWithTheFileOpenTheAgentReadsItsUnsavedText",
            "testAModeThatEditsWritesIntoTheOpenDocumentUnaskedAndDefaultAsksAgain",
            "testTheAgentsQuestionIsAnsweredWithAChoiceAndTheUsersOwnWords",
            "testCancelStopsATurn",
            "testAnEarlierSessionLoadsWithItsHistoryAndAsksBeforeEdits",
            "testClosingTheWindowStopsTheAgent")
        .suite();
  }

  /** The agent under test: {@code qwen}; its peer's kind in upper case. */
  protected String agent() {
    return "qwen";
  }

  /** What the log shows of the write the user rejected. */
  protected String rejectionShown() {
    return "rejected the edit";
  }

  /** The chat window's tab. */
  protected String windowTitle() {
    return "Qwen Code Chat";
  }

  /** One of the agent's own slash commands, answered without the model: its version. */
  protected String versionCommand() {
    return "/status";
  }

  /** What {@link #versionCommand} answers. */
  protected String versionText() {
    return "Qwen Code v0.24.4";
  }

  /** The agent's mode that edits without asking. */
  protected String editMode() {
    return "auto-edit";
  }

  public void testTheOptionsPickTheAgentAndAPromptStreamsAnAnswer() throws Exception {
    Path root = BUILD.resolve("acp-chat-" + agent());
    workspace = root.resolve("workspace");
    Ui.freshProjectFolder(workspace);
    peer =
        AgentPeer.start(
            agent().toUpperCase(java.util.Locale.ROOT),
            root,
            BUILD.resolve("cli-logs").resolve("acp-chat-" + agent() + ".log"));
    assertEquals(workspace, peer.workspace);
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(workspace.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);
    Await.until(WAIT, () -> OpenProjects.getDefault().getOpenProjects().length == 1);
    Edt.call(
        () -> {
          WindowManager.getDefault().getMainWindow().setBounds(0, 0, 1400, 900);
          return null;
        });

    Ui.chooseAcpAgent(peer.agent);
    chat = Ui.openChatWindow();
    // A new session asks before edits, whatever the agent's own default.
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    assertEquals("the tab names the agent", windowTitle(), Edt.call(chat::getName));
    assertEquals(
        "The agent ("
            + agent()
            + ") runs on this machine in "
            + workspace
            + "; it reads the open editors' text, and its writes come to NetBeans' diff view for"
            + " review unless its mode lets it edit.",
        Edt.call(() -> Ui.find(chat, JTextArea.class, "companion4j.chat.where").getText()));

    prompt("say hello");
    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains("Hello from "));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    Element first = Edt.call(() -> logDocument().getElement("e0"));
    assertNotNull("each entry has its own block in the log", first);

    prompt("[[count 40]]");
    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains("c0039"));
    assertSame(
        "the first entry was rendered once: the later ones left its block alone",
        first,
        Edt.call(() -> logDocument().getElement("e0")));
    String log = logText();
    assertTrue(log, log.contains("You: say hello") && log.contains("You: [[count 40]]"));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);

    // The agent's slash commands are offered as a command is typed; Tab takes the first.
    JTextArea input =
        Edt.call(() -> Ui.find(chatWindow(), JTextArea.class, "companion4j.chat.input"));
    Edt.call(
        () -> {
          input.setText("/");
          return null;
        });
    String offered =
        Await.until(WAIT, () -> label("companion4j.chat.commands"), t -> t.contains("(Tab: /"));
    String command = offered.substring(offered.indexOf("(Tab: /") + 7, offered.length() - 1);
    Edt.call(
        () -> {
          input
              .getActionMap()
              .get(input.getInputMap().get(KeyStroke.getKeyStroke("TAB")))
              .actionPerformed(null);
          return null;
        });
    assertEquals("/" + command + " ", Edt.call(input::getText));

    // Typing narrows the offer to one of the agent's commands, which runs in the agent.
    String wanted = versionCommand();
    Edt.call(
        () -> {
          input.setText(wanted.substring(0, 4));
          return null;
        });
    Await.until(
        WAIT, () -> label("companion4j.chat.commands"), t -> t.contains("(Tab: " + wanted + ")"));
    Edt.call(
        () -> {
          input
              .getActionMap()
              .get(input.getInputMap().get(KeyStroke.getKeyStroke("TAB")))
              .actionPerformed(null);
          return null;
        });
    assertEquals(wanted + " ", Edt.call(input::getText));
    Ui.click(chatWindow(), "companion4j.chat.send");
    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains(versionText()));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
  }

  /**
   * A file for the agent to write: a new one, or one that exists for an agent that cannot create
   * files through the client (Gemini CLI).
   */
  protected Path fileToWrite(String name) throws Exception {
    return workspace.resolve(name);
  }

  public void testAnAcceptedWriteHoldsTheUsersEdit() throws Exception {
    Path file = fileToWrite("accepted.txt");
    String before = contentOf(file);
    prompt("[[write " + file + "]]");
    // The agent asks first (its own permission request), then writes through the IDE.
    Ui.clickOption(Ui.awaitPermissionCard(chatWindow(), WAIT), "allow_once");
    TopComponent diff = awaitDiffWindow();
    JEditorPane right = Ui.awaitEditableRightSide(diff, WRITTEN);
    assertEquals("nothing written before the answer", before, contentOf(file));
    if (agent().equals("qwen")) {
      // The IDE as the user sees it: the chat with its mode, and the write in the diff view.
      Ui.screenshot(WindowManager.getDefault().getMainWindow(), null, "netbeans-chat-acp.png");
    }
    Edt.call(
        () -> {
          right.getDocument().insertString(0, "edited in NetBeans\n", null);
          return null;
        });
    Ui.click(diff, "companion4j.accept");

    Await.until(WAIT, () -> contentOf(file), ("edited in NetBeans\n" + WRITTEN)::equals);
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
  }

  public void testARejectedWriteLeavesTheFileAndFailsTheCall() throws Exception {
    Path file = fileToWrite("rejected.txt");
    String before = contentOf(file);
    prompt("[[write " + file + "]]");
    Ui.clickOption(Ui.awaitPermissionCard(chatWindow(), WAIT), "allow_once");
    TopComponent diff = awaitDiffWindow();
    Ui.awaitEditableRightSide(diff, WRITTEN);
    Ui.click(diff, "companion4j.reject");

    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains(rejectionShown()));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    assertEquals(before, contentOf(file));
  }

  public void testWithTheFileOpenTheAgentReadsItsUnsavedText() throws Exception {
    Path file = workspace.resolve("notes.txt");
    Files.writeString(file, "as saved\n");
    StyledDocument doc = (StyledDocument) Ui.openInEditor(file).getDocument();
    Edt.call(
        () -> {
          doc.insertString(0, "not saved yet\n", null);
          return null;
        });

    prompt("[[call read_file {\"file_path\":\"" + file + "\"}]]");

    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains("not saved yet"));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    assertEquals("as saved\n", Files.readString(file));
  }

  public void testAModeThatEditsWritesIntoTheOpenDocumentUnaskedAndDefaultAsksAgain()
      throws Exception {
    Path file = workspace.resolve("notes.txt");
    // The read test's file; a suite without that test (Gemini CLI's) starts from the saved text.
    if (!Files.exists(file)) {
      Files.writeString(file, "as saved\n");
    }
    StyledDocument doc = (StyledDocument) Ui.openInEditor(file).getDocument();
    JComboBox<?> mode =
        Edt.call(() -> Ui.find(chatWindow(), JComboBox.class, "companion4j.chat.mode"));
    Edt.call(
        () -> {
          mode.setSelectedItem(editMode());
          return null;
        });
    Await.until(
        WAIT,
        () -> label("companion4j.chat.state"),
        ("Connected \u00b7 approval: " + editMode())::equals);

    prompt("[[write " + file + "]]");

    Await.until(WAIT, () -> Edt.call(() -> doc.getText(0, doc.getLength())), WRITTEN::equals);
    assertNull("no question in this mode", Edt.call(() -> Ui.permissionCard(chatWindow())));
    assertNull("no review in this mode", Edt.call(NetBeansAcpChatIT::diffWindow));
    assertEquals(
        "into the document, not saved behind the user's back",
        "as saved\n",
        Files.readString(file));
    Await.until(
        WAIT,
        () -> label("companion4j.chat.state"),
        ("Connected \u00b7 approval: " + editMode())::equals);

    Edt.call(
        () -> {
          mode.setSelectedItem("default");
          return null;
        });
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    prompt("[[write " + file + "]]");
    JComponent card = Ui.awaitPermissionCard(chatWindow(), WAIT);
    Ui.clickOption(card, "reject_once");
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
  }

  public void testTheAgentsQuestionIsAnsweredWithAChoiceAndTheUsersOwnWords() throws Exception {
    prompt(AskUserQuestion.PROMPT);
    JComponent card = Ui.awaitPermissionCard(chatWindow(), WAIT);
    JLabel first =
        Edt.call(
            () ->
                Ui.findFirst(card, JLabel.class, l -> l.getText().endsWith(AskUserQuestion.FIRST)));
    assertNotNull("the question shows", first);
    assertEquals(
        "the model's text is no markup", Boolean.TRUE, first.getClientProperty("html.disable"));

    Ui.click(card, "companion4j.chat.question.0.1");
    Ui.click(card, "companion4j.chat.question.1.0");
    Edt.call(
        () -> {
          Ui.find(card, JTextField.class, "companion4j.chat.question.1.own").setText("my own");
          return null;
        });
    Ui.clickOption(card, "allow_once");

    Await.until(
        WAIT,
        NetBeansAcpChatIT::logText,
        t -> t.contains("Library: java.time") && t.contains("Checks: lint, my own"));
    assertNull("the question is answered", Edt.call(() -> Ui.permissionCard(chatWindow())));
  }

  public void testCancelStopsATurn() throws Exception {
    // The fake model holds this answer open until the caller goes away.
    prompt("[[hold]]");
    Await.until(WAIT, () -> label("companion4j.chat.state"), t -> t.startsWith("Working\u2026"));
    Ui.click(chatWindow(), "companion4j.chat.cancel");

    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
  }

  /**
   * Sessions... on the ACP path lists the agent's earlier sessions by their first prompt; picking
   * one starts the agent on it, its history replayed, in the mode that asks before edits.
   */
  public void testAnEarlierSessionLoadsWithItsHistoryAndAsksBeforeEdits() throws Exception {
    Ui.click(chatWindow(), "companion4j.chat.new");
    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> !t.contains("You: say hello"));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);

    Ui.pickSession(chatWindow(), b -> b.getText().startsWith("say hello"), WAIT);

    Await.until(
        WAIT,
        NetBeansAcpChatIT::logText,
        t -> t.contains("You: say hello") && t.contains("You: [[count 40]]"));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
    prompt("say hello again");
    Await.until(WAIT, NetBeansAcpChatIT::logText, t -> t.contains("You: say hello again"));
    Await.until(WAIT, () -> label("companion4j.chat.state"), CONNECTED::equals);
  }

  public void testClosingTheWindowStopsTheAgent() throws Exception {
    List<ProcessHandle> agents =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().arguments().map(a -> List.of(a).contains("--acp")).orElse(false))
            .toList();
    assertFalse("the IDE started the agent", agents.isEmpty());

    Edt.call(chat::close);

    Await.until(WAIT, () -> agents.stream().noneMatch(ProcessHandle::isAlive));
    peer.close();
  }

  /** The file's text; empty when there is no such file. */
  private static String contentOf(Path file) throws Exception {
    return Files.exists(file) ? Files.readString(file) : "";
  }

  /** Sends {@code text} once the window takes a prompt (not while the agent answers). */
  private static void prompt(String text) throws Exception {
    Await.until(
        WAIT,
        () ->
            Edt.call(
                () ->
                    Ui.find(chatWindow(), AbstractButton.class, "companion4j.chat.send")
                        .isEnabled()));
    Edt.call(
        () -> {
          Ui.find(chatWindow(), JTextArea.class, "companion4j.chat.input").setText(text);
          return null;
        });
    Ui.click(chatWindow(), "companion4j.chat.send");
  }

  /** The open diff window of a proposal, if one is open; on the EDT. */
  private static TopComponent diffWindow() {
    for (TopComponent tc : TopComponent.getRegistry().getOpened()) {
      if ("companion4j-diff".equals(tc.getName())) {
        return tc;
      }
    }
    return null;
  }

  private static TopComponent awaitDiffWindow() throws Exception {
    try {
      return Await.until(WAIT, () -> Edt.call(NetBeansAcpChatIT::diffWindow), tc -> tc != null);
    } catch (AssertionError e) {
      throw new AssertionError("no diff window opened; the chat shows:\n" + logText(), e);
    }
  }

  static Container chatWindow() {
    return chat;
  }

  static String label(String name) throws Exception {
    return Edt.call(() -> Ui.find(chatWindow(), JLabel.class, name).getText());
  }

  private static HTMLDocument logDocument() {
    return (HTMLDocument)
        Ui.find(chatWindow(), JEditorPane.class, "companion4j.chat.log").getDocument();
  }

  /** The conversation as the log pane shows it, as plain text. */
  private static String logText() throws Exception {
    return Edt.call(
        () -> Ui.textOf(Ui.find(chatWindow(), JEditorPane.class, "companion4j.chat.log")));
  }
}
