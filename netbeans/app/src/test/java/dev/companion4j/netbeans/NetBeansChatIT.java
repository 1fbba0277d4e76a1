package dev.companion4j.netbeans;

import java.awt.Container;
import java.awt.Rectangle;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.swing.AbstractButton;
import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JPasswordField;
import javax.swing.JRadioButton;
import javax.swing.JTextArea;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;
import javax.swing.text.BadLocationException;
import javax.swing.text.Document;
import junit.framework.Test;
import org.netbeans.api.keyring.Keyring;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.netbeans.spi.options.OptionsPanelController;
import org.openide.LifecycleManager;
import org.openide.awt.StatusLineElementProvider;
import org.openide.filesystems.FileUtil;
import org.openide.modules.Places;
import org.openide.util.Lookup;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * Boots a real NetBeans platform (GUI, under Xvfb) with the companion module and chats in Window
 * &gt; Agent Chat with the real {@code qwen serve} of Qwen Code 0.24.4, its model a scripted fake.
 * The tests run in the order of {@link #suite()} and share the IDE, the daemon and the chat.
 */
public class NetBeansChatIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));

  /** The client's reconnect budget (15 s) and then some. */
  private static final Duration DEATH = WAIT.plusSeconds(15);

  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("chat");
  private static final String TOKEN = "nb-chat-test-token-0123456789abcdef";

  /** What the fake model writes for {@code [[write PATH]]}. */
  private static final String WRITTEN = "written by the fake model\n";

  private static DaemonPeer daemon;
  private static TopComponent chat;

  public NetBeansChatIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansChatIT.class)
        .addTest(
            "testOptionsKeepTheTokenInTheKeyringAndTheChatConnects",
            "testPromptStreamsAnAnswer",
            "testAllowingAFileWriteWritesIt",
            "testDenyingAFileWriteLeavesTheFile",
            "testJoiningASessionStartedElsewhereReplaysItsHistory",
            "testDeadDaemonShowsDisconnectedAndReconnects",
            "testSpawnedDaemonServesTheProjectAndStopsWithTheIde")
        .suite();
  }

  public void testOptionsKeepTheTokenInTheKeyringAndTheChatConnects() throws Exception {
    Ui.freshProjectFolder(WORKSPACE);
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(WORKSPACE.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);
    Await.until(WAIT, () -> OpenProjects.getDefault().getOpenProjects().length == 1);
    daemon =
        DaemonPeer.start(
            WORKSPACE, TOKEN, BUILD.resolve("cli-logs").resolve("qwen-serve-chat.log"));
    Edt.call(
        () -> {
          WindowManager.getDefault().getMainWindow().setBounds(0, 0, 1400, 900);
          return null;
        });

    OptionsPanelController options = Ui.companionOptions();
    JComponent panel = Edt.call(() -> options.getComponent(Lookup.EMPTY));
    Edt.call(
        () -> {
          Ui.find(panel, JRadioButton.class, "companion4j.daemonAttach").doClick();
          Ui.find(panel, JTextField.class, "companion4j.daemonUrl").setText(daemon.url);
          Ui.find(panel, JPasswordField.class, "companion4j.daemonToken").setText(TOKEN);
          assertTrue("typing marks the panel changed", options.isChanged());
          options.applyChanges();
          return null;
        });
    // Saved off the EDT, since a keyring may ask for its master password first.
    Await.until(
        WAIT,
        () -> Keyring.read("dev.companion4j.netbeans.daemonToken"),
        t -> t != null && TOKEN.equals(new String(t)));
    try (Stream<Path> config = Files.walk(Places.getUserDirectory().toPath().resolve("config"))) {
      for (Path file : config.filter(Files::isRegularFile).toList()) {
        assertFalse(
            "no token in " + file,
            Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1).contains(TOKEN));
      }
    }

    chat = Ui.openChatWindow();
    Await.until(
        WAIT,
        () -> label("companion4j.chat.state"),
        t -> t.equals("Connected \u00b7 approval: default"));
    // Named by host and port: the daemon's address stays in the IDE's JVM.
    assertEquals(
        "The agent runs on "
            + daemon.url.replaceFirst("^http://", "")
            + " in "
            + WORKSPACE
            + ": that host's files, tools and credentials, not this machine's.",
        Edt.call(() -> Ui.find(chat, JTextArea.class, "companion4j.chat.where").getText()));
    Await.until(WAIT, NetBeansChatIT::chatStatusText, "Qwen chat: connected"::equals);
  }

  public void testPromptStreamsAnAnswer() throws Exception {
    prompt("say hello");
    Await.until(WAIT, NetBeansChatIT::logText, t -> t.contains("Hello from fake-model"));
    String log = logText();
    assertTrue(log, log.contains("You: say hello"));
    Await.until(
        WAIT, () -> label("companion4j.chat.state"), "Connected \u00b7 approval: default"::equals);

    JComboBox<?> model =
        Edt.call(() -> Ui.find(chatWindow(), JComboBox.class, "companion4j.chat.model"));
    Edt.call(
        () -> {
          model.setSelectedItem("fake-model-2");
          return null;
        });
    // Shown once the daemon says it switched.
    Await.until(WAIT, () -> Edt.call(model::getSelectedItem), "fake-model-2"::equals);
    prompt("say hello");
    Await.until(WAIT, NetBeansChatIT::logText, t -> t.contains("Hello from fake-model-2"));
  }

  public void testAllowingAFileWriteWritesIt() throws Exception {
    Path file = WORKSPACE.resolve("allowed.txt");
    prompt("[[write " + file + "]]");
    JComponent card = Ui.awaitPermissionCard(chatWindow(), WAIT);
    JComponent diff =
        Edt.call(() -> Ui.find(card, JComponent.class, "companion4j.chat.diff:" + file));
    assertNotNull("the change shows in NetBeans' diff view", diff);
    String diffText = Edt.call(() -> textOf(diff));
    assertTrue(diffText, diffText.contains(WRITTEN.strip()));
    assertFalse("nothing written before the answer", Files.exists(file));
    // The chat window with its tab, and the status bar below it.
    java.awt.Frame main = WindowManager.getDefault().getMainWindow();
    Ui.screenshot(
        main,
        Edt.call(
            () -> {
              Rectangle area =
                  SwingUtilities.convertRectangle(chat.getParent(), chat.getBounds(), main);
              area.grow(4, 28);
              return area.intersection(new Rectangle(0, 0, main.getWidth(), main.getHeight()));
            }),
        "netbeans-chat.png");

    Ui.clickOption(card, "allow_once");
    Await.until(WAIT, () -> Files.exists(file) && Files.readString(file).equals(WRITTEN));
    Await.until(
        WAIT,
        () -> Edt.call(() -> Ui.find(chatWindow(), JComponent.class, card.getName()) == null));
    Await.until(
        WAIT, () -> label("companion4j.chat.state"), "Connected \u00b7 approval: default"::equals);
  }

  public void testDenyingAFileWriteLeavesTheFile() throws Exception {
    Path file = WORKSPACE.resolve("denied.txt");
    prompt("[[write " + file + "]]");
    JComponent card = Ui.awaitPermissionCard(chatWindow(), WAIT);
    Ui.clickOption(card, "reject_once");
    Await.until(
        WAIT,
        () -> Edt.call(() -> Ui.find(chatWindow(), JComponent.class, card.getName()) == null));
    Await.until(
        WAIT, () -> label("companion4j.chat.state"), "Connected \u00b7 approval: default"::equals);
    assertTrue(logText(), logText().contains("WriteFile \u2014 failed"));
    assertFalse(Files.exists(file));
  }

  public void testJoiningASessionStartedElsewhereReplaysItsHistory() throws Exception {
    // Another client of the daemon, as a terminal would be: a session of its own, and a prompt in
    // it.
    String sessionId =
        daemonCall("/session", Map.of("cwd", WORKSPACE.toString(), "sessionScope", "thread"))
            .path("sessionId")
            .asString();
    daemonCall(
        "/session/" + sessionId + "/prompt",
        Map.of("prompt", List.of(Map.of("type", "text", "text", "from the terminal: say hello"))));

    Ui.pickSession(
        chatWindow(), b -> b.getName().equals("companion4j.chat.session:" + sessionId), WAIT);
    Await.until(
        WAIT,
        NetBeansChatIT::logText,
        t ->
            t.contains("You: from the terminal: say hello")
                && t.contains("Hello from fake-model")
                && !t.contains("allowed.txt"));
  }

  public void testDeadDaemonShowsDisconnectedAndReconnects() throws Exception {
    daemon.kill();
    Await.until(DEATH, () -> label("companion4j.chat.state"), t -> t.startsWith("Disconnected: "));
    assertEquals("Qwen chat: disconnected", chatStatusText());
    assertFalse(
        Edt.call(
            () ->
                Ui.find(chatWindow(), AbstractButton.class, "companion4j.chat.send").isEnabled()));
    AbstractButton reconnect =
        Edt.call(() -> Ui.find(chatWindow(), AbstractButton.class, "companion4j.chat.new"));
    assertEquals("Reconnect", Edt.call(reconnect::getText));

    daemon.restart();
    Ui.click(chatWindow(), "companion4j.chat.new");
    Await.until(
        WAIT, () -> label("companion4j.chat.state"), "Connected \u00b7 approval: default"::equals);
    prompt("say hello again");
    Await.until(WAIT, NetBeansChatIT::logText, t -> t.contains("Hello from fake-model"));
  }

  public void testSpawnedDaemonServesTheProjectAndStopsWithTheIde() throws Exception {
    // qwen as a user installs it, its settings on the fake model in a home of its own.
    Path home = Files.createDirectories(BUILD.resolve("spawn-home").resolve(".qwen")).getParent();
    Files.writeString(home.resolve(".qwen/settings.json"), daemon.settings);
    Path qwen = Files.createDirectories(BUILD.resolve("spawn-bin")).resolve("qwen");
    Files.writeString(
        qwen,
        "#!/bin/sh\nHOME='"
            + home
            + "' QWEN_HOME='"
            + home.resolve(".qwen")
            + "' FAKE_MODEL_KEY=sk-fake-test-key exec node '"
            + Path.of(
                System.getProperty("companion4j.testPeers"),
                "node_modules/@qwen-code/qwen-code/cli.js")
            + "' \"$@\"\n");
    Files.setPosixFilePermissions(
        qwen, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));

    OptionsPanelController options = Ui.companionOptions();
    Edt.call(
        () -> {
          Ui.find(options.getComponent(Lookup.EMPTY), JRadioButton.class, "companion4j.daemonSpawn")
              .doClick();
          Ui.find(options.getComponent(Lookup.EMPTY), JTextField.class, "companion4j.qwenCommand")
              .setText(qwen.toString());
          options.applyChanges();
          return null;
        });
    Await.until(
        WAIT,
        () -> Edt.call(() -> Ui.find(chat, JTextArea.class, "companion4j.chat.where").getText()),
        t ->
            t.startsWith("The agent runs on 127.0.0.1:")
                && !t.contains(daemon.url.replaceFirst("^http://", "") + " ")
                && t.contains(" in " + WORKSPACE + ":"));
    Await.until(
        WAIT, () -> label("companion4j.chat.state"), "Connected \u00b7 approval: default"::equals);
    List<ProcessHandle> spawned =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().arguments().map(a -> List.of(a).contains("serve")).orElse(false))
            .toList();
    assertFalse("the IDE started qwen serve", spawned.isEmpty());
    assertTrue(
        "no token among its arguments",
        spawned.stream()
            .allMatch(
                p ->
                    p.info()
                        .arguments()
                        .map(a -> Stream.of(a).noneMatch(arg -> arg.matches("[0-9a-f]{64}")))
                        .orElse(true)));
    prompt("say hello");
    Await.until(WAIT, NetBeansChatIT::logText, t -> t.contains("Hello from fake-model"));
    daemon.close();

    // The exit path NetBeans takes from File > Exit, minus the final System.exit.
    System.setProperty("netbeans.close.no.exit", "true");
    LifecycleManager.getDefault().exit();
    Await.until(WAIT, () -> spawned.stream().noneMatch(ProcessHandle::isAlive));
  }

  /**
   * POSTs {@code body} to the daemon with its token, as another client would, and returns the
   * answer.
   */
  private static Json daemonCall(String path, Map<String, Object> body) throws Exception {
    HttpResponse<String> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create(daemon.url + path))
                    .header("Authorization", "Bearer " + TOKEN)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertTrue(
        path + " answered " + response.statusCode() + ": " + response.body(),
        response.statusCode() / 100 == 2);
    return Json.parse(response.body());
  }

  private static void prompt(String text) throws Exception {
    Edt.call(
        () -> {
          Ui.find(chatWindow(), JTextArea.class, "companion4j.chat.input").setText(text);
          return null;
        });
    Ui.click(chatWindow(), "companion4j.chat.send");
  }

  private static Container chatWindow() {
    return chat;
  }

  private static String label(String name) throws Exception {
    return Edt.call(() -> Ui.find(chatWindow(), JLabel.class, name).getText());
  }

  /** The conversation as the log pane shows it, as plain text. */
  private static String logText() throws Exception {
    return Edt.call(() -> textOf(Ui.find(chatWindow(), JEditorPane.class, "companion4j.chat.log")));
  }

  /** The text of every text pane under {@code root}, joined. */
  private static String textOf(JComponent root) {
    StringBuilder text = new StringBuilder();
    if (root instanceof javax.swing.text.JTextComponent pane) {
      Document doc = pane.getDocument();
      try {
        text.append(doc.getText(0, doc.getLength())).append('\n');
      } catch (BadLocationException e) {
        throw new IllegalStateException(e);
      }
    }
    for (java.awt.Component child : root.getComponents()) {
      if (child instanceof JComponent c) {
        text.append(textOf(c));
      }
    }
    return text.toString();
  }

  private static String chatStatusText() throws Exception {
    return Edt.call(
        () -> {
          for (StatusLineElementProvider p :
              Lookup.getDefault().lookupAll(StatusLineElementProvider.class)) {
            if (p.getStatusLineElement() instanceof JLabel label
                && "companion4j.chatStatus".equals(label.getName())) {
              return label.getText();
            }
          }
          throw new AssertionError("the chat's status-bar item is registered");
        });
  }
}
