package dev.companion4j.netbeans;

import java.awt.Frame;
import java.awt.KeyboardFocusManager;
import java.awt.Point;
import java.awt.Rectangle;
import java.awt.Window;
import java.awt.event.InputEvent;
import java.awt.event.KeyEvent;
import java.awt.event.MouseEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.swing.AbstractButton;
import javax.swing.JCheckBox;
import javax.swing.JComponent;
import javax.swing.JDialog;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JRadioButton;
import javax.swing.JTextArea;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;
import javax.swing.text.Document;
import junit.framework.Test;
import org.netbeans.api.autoupdate.OperationContainer;
import org.netbeans.api.autoupdate.OperationSupport;
import org.netbeans.api.autoupdate.UpdateElement;
import org.netbeans.api.autoupdate.UpdateManager;
import org.netbeans.api.autoupdate.UpdateUnit;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.netbeans.spi.options.OptionsPanelController;
import org.openide.LifecycleManager;
import org.openide.awt.StatusDisplayer;
import org.openide.awt.StatusLineElementProvider;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.util.Lookup;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * Boots a real NetBeans platform (GUI, under Xvfb) with the companion module and drives it with the
 * real IdeClients of Qwen Code 0.24.4 and Gemini CLI 0.61.0. The tests run in the order of {@link
 * #suite()} and share the IDE, the project and the connected CLIs; the last one exits.
 */
public class NetBeansCompanionIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));
  private static final long PID = ProcessHandle.current().pid();

  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("demo");
  private static final Path HELLO = WORKSPACE.resolve("Hello.txt");
  private static final String HELLO_TEXT = "first line\nHello World here\nthird line\n";

  private static CliDriver qwen;
  private static CliDriver gemini;

  public NetBeansCompanionIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansCompanionIT.class)
        .addTest(
            "testAnnouncesNetBeansWithEmptyWorkspace",
            "testOpeningProjectRewritesDiscoveryFiles",
            "testEditorContextReachesBothClis",
            "testStatusBarClickShowsTerminalVariables",
            "testClosingEditorDropsFileFromContext",
            "testRenamingAndDeletingFilesUpdateContext",
            "testAcceptWithEditsFromButton",
            "testAcceptNewFileWithCtrlS",
            "testClosingDiffWindowRejects",
            "testCloseDiffFromCliClosesWindow",
            "testAcceptOfReplacedProposalSendsNothing",
            "testOptionsPanelTurnsDiscoveryFilesOffAndOn",
            "testDeactivatingModuleRemovesDiscoveryFiles",
            "testExitRemovesDiscoveryFiles")
        .suite();
  }

  public void testAnnouncesNetBeansWithEmptyWorkspace() throws Exception {
    Ui.freshProjectFolder(WORKSPACE);
    Files.writeString(HELLO, HELLO_TEXT);
    Files.writeString(WORKSPACE.resolve("Other.txt"), "another file\n");
    Edt.call(
        () -> {
          WindowManager.getDefault().getMainWindow().setBounds(0, 0, 1400, 860);
          return null;
        });

    Json geminiFile = Await.until(WAIT, () -> geminiDiscovery().orElse(null), f -> f != null);
    assertEquals("netbeans", geminiFile.at("/ideInfo/name").asString());
    assertEquals("Apache NetBeans", geminiFile.at("/ideInfo/displayName").asString());
    assertEquals("", geminiFile.path("workspacePath").asString());
    int port = geminiFile.path("port").asInt();
    Json qwenLock = Await.until(WAIT, () -> qwenLock().orElse(null), f -> f != null);
    assertEquals(port, qwenLock.path("port").asInt());
    assertEquals("netbeans", qwenLock.at("/ideInfo/name").asString());

    // The CLI sees this IDE but is told to open a folder: nothing to work in yet.
    try (CliDriver probe = CliDriver.start("gemini", WORKSPACE, BUILD.resolve("cli-logs"))) {
      Json status = probe.call("connect");
      assertEquals("disconnected", status.path("status").asString());
      assertTrue(
          status.toString(), status.path("details").asString().contains("open a workspace folder"));
      assertEquals("Apache NetBeans", status.path("ideDisplayName").asString());
    }
  }

  public void testOpeningProjectRewritesDiscoveryFiles() throws Exception {
    FileObject dir = FileUtil.toFileObject(WORKSPACE.toFile());
    Project project = ProjectManager.getDefault().findProject(dir);
    assertNotNull("the test project factory recognises the folder", project);
    OpenProjects.getDefault().open(new Project[] {project}, false);
    Edt.call(
        () -> {
          // The Files window shows the project, as a user would see it next to the diff.
          TopComponent files = WindowManager.getDefault().findTopComponent("projectTab_tc");
          if (files != null) {
            files.open();
            files.requestVisible();
          }
          return null;
        });

    Await.until(
        WAIT,
        () -> geminiDiscovery().map(f -> f.path("workspacePath").asString()).orElse(""),
        WORKSPACE.toString()::equals);
    Await.until(
        WAIT,
        () -> qwenLock().map(f -> f.path("workspacePath").asString()).orElse(""),
        WORKSPACE.toString()::equals);
    int port = geminiDiscovery().orElseThrow().path("port").asInt();
    Await.until(
        WAIT, () -> statusText(), t -> t.equals("CLI companion :" + port + " \u00b7 0 CLIs"));
  }

  public void testEditorContextReachesBothClis() throws Exception {
    JEditorPane pane = Ui.openInEditor(HELLO);
    // Select "World" on line 2; the caret ends after it.
    Edt.call(
        () -> {
          int start = HELLO_TEXT.indexOf("World");
          pane.setCaretPosition(start);
          pane.moveCaretPosition(start + "World".length());
          return null;
        });

    qwen = CliDriver.start("qwen", WORKSPACE, BUILD.resolve("cli-logs"));
    gemini = CliDriver.start("gemini", WORKSPACE, BUILD.resolve("cli-logs"));
    for (CliDriver cli : List.of(qwen, gemini)) {
      Json status = cli.call("connect");
      assertEquals(cli.cli + ": " + status, "connected", status.path("status").asString());
      assertEquals("Apache NetBeans", status.path("ideDisplayName").asString());
      assertTrue(cli.cli + " enables diffing", status.path("diffingEnabled").asBoolean());
    }
    for (CliDriver cli : List.of(qwen, gemini)) {
      Json active = awaitActiveFile(cli, HELLO, 2, 12);
      assertEquals(cli.cli, "World", active.path("selectedText").asString());
    }

    // Moving the caret without a selection: new position, selection gone.
    Edt.call(
        () -> {
          pane.setCaretPosition(HELLO_TEXT.indexOf("third") + 2);
          return null;
        });
    for (CliDriver cli : List.of(qwen, gemini)) {
      Json active = awaitActiveFile(cli, HELLO, 3, 3);
      assertTrue(cli.cli + ": " + active, active.path("selectedText").asString("").isEmpty());
    }
    int port = geminiDiscovery().orElseThrow().path("port").asInt();
    Await.until(
        WAIT, () -> statusText(), t -> t.equals("CLI companion :" + port + " \u00b7 2 CLIs"));
  }

  public void testStatusBarClickShowsTerminalVariables() throws Exception {
    int port = geminiDiscovery().orElseThrow().path("port").asInt();
    Edt.call(
        () -> {
          JLabel label = statusLabel();
          label.dispatchEvent(
              new MouseEvent(
                  label,
                  MouseEvent.MOUSE_CLICKED,
                  System.currentTimeMillis(),
                  0,
                  5,
                  5,
                  1,
                  false,
                  MouseEvent.BUTTON1));
          return null;
        });
    JDialog dialog =
        Await.until(
            WAIT,
            () ->
                Edt.call(
                    () -> {
                      for (Window w : Window.getWindows()) {
                        if (w instanceof JDialog d
                            && d.isShowing()
                            && Ui.find(d, JTextArea.class, "companion4j.statusText") != null) {
                          return d;
                        }
                      }
                      return null;
                    }),
            d -> d != null);
    String text =
        Edt.call(() -> Ui.find(dialog, JTextArea.class, "companion4j.statusText").getText());
    assertTrue(text, text.contains("export QWEN_CODE_IDE_SERVER_PORT='" + port + "'"));
    assertTrue(text, text.contains("export GEMINI_CLI_IDE_SERVER_PORT='" + port + "'"));
    assertTrue(text, text.contains("export GEMINI_CLI_IDE_WORKSPACE_PATH='" + WORKSPACE + "'"));
    assertTrue(text, text.contains(geminiFiles().get(0).toString()));
    assertTrue(text, text.contains(qwenLockFiles().get(0).toString()));
    assertTrue(text, text.contains("Connected CLIs: "));
    Ui.screenshot(dialog, null, "netbeans-status-dialog.png");
    Edt.call(
        () -> {
          dialog.dispose();
          return null;
        });
  }

  public void testClosingEditorDropsFileFromContext() throws Exception {
    Path other = WORKSPACE.resolve("Other.txt");
    Ui.openInEditor(other);
    for (CliDriver cli : List.of(qwen, gemini)) {
      awaitActiveFile(cli, other, 1, 1);
    }
    EditorCookie editor =
        DataObject.find(FileUtil.toFileObject(other.toFile()))
            .getLookup()
            .lookup(EditorCookie.class);
    assertTrue(Edt.call(editor::close));
    for (CliDriver cli : List.of(qwen, gemini)) {
      Await.until(
          WAIT,
          () -> openFilePaths(cli),
          paths -> !paths.contains(other.toString()) && paths.contains(HELLO.toString()));
    }
  }

  public void testRenamingAndDeletingFilesUpdateContext() throws Exception {
    Path third = WORKSPACE.resolve("Third.txt");
    Files.writeString(third, "third file\n");
    Ui.openInEditor(third);
    for (CliDriver cli : List.of(qwen, gemini)) {
      awaitActiveFile(cli, third, 1, 1);
    }
    FileObject file = FileUtil.toFileObject(third.toFile());
    org.openide.filesystems.FileLock lock = file.lock();
    try {
      file.rename(lock, "Renamed", "txt");
    } finally {
      lock.releaseLock();
    }
    Path renamed = WORKSPACE.resolve("Renamed.txt");
    for (CliDriver cli : List.of(qwen, gemini)) {
      awaitActiveFile(cli, renamed, 1, 1);
      Await.until(WAIT, () -> openFilePaths(cli), paths -> !paths.contains(third.toString()));
    }
    file.delete();
    for (CliDriver cli : List.of(qwen, gemini)) {
      Await.until(
          WAIT,
          () -> openFilePaths(cli),
          paths -> !paths.contains(renamed.toString()) && paths.contains(HELLO.toString()));
    }
  }

  public void testAcceptWithEditsFromButton() throws Exception {
    String proposal = HELLO_TEXT.replace("World", "NetBeans");
    CompletableFuture<Json> outcome =
        qwen.send("openDiff", Map.of("filePath", HELLO.toString(), "newContent", proposal));
    TopComponent window = awaitDiffWindow("Hello.txt (Before \u2194 After)", outcome);
    JEditorPane right = Ui.awaitEditableRightSide(window, proposal);
    Edt.call(
        () -> {
          right.getDocument().insertString(0, "// reviewed in NetBeans\n", null);
          return null;
        });
    int port = geminiDiscovery().orElseThrow().path("port").asInt();
    Await.until(
        WAIT,
        () -> statusText(),
        t -> t.equals("CLI companion :" + port + " \u00b7 2 CLIs \u00b7 1 diff"));
    Ui.screenshot(WindowManager.getDefault().getMainWindow(), null, "netbeans-diff.png");
    Ui.screenshot(
        WindowManager.getDefault().getMainWindow(), statusBarArea(), "netbeans-status-bar.png");

    Ui.click(window, DiffTopComponentNames.ACCEPT);
    Json answer = outcome.get(60, TimeUnit.SECONDS);
    assertEquals(answer.toString(), "accepted", answer.path("status").asString());
    assertEquals("// reviewed in NetBeans\n" + proposal, answer.path("content").asString());
    assertEquals(
        "the module never writes the file; the CLI does", HELLO_TEXT, Files.readString(HELLO));
    Await.until(WAIT, () -> Edt.call(window::isOpened), open -> !open);
  }

  public void testAcceptNewFileWithCtrlS() throws Exception {
    Path created = WORKSPACE.resolve("Created.txt");
    String proposal = "brand new\r\nwith CRLF\r\n";
    CompletableFuture<Json> outcome =
        gemini.send("openDiff", Map.of("filePath", created.toString(), "newContent", proposal));
    TopComponent window = awaitDiffWindow("Created.txt (Before \u2194 After)", outcome);
    JEditorPane right = Ui.awaitEditableRightSide(window, proposal.replace("\r\n", "\n"));
    List<JEditorPane> readOnly =
        Edt.call(() -> Ui.panes(window).stream().filter(p -> !p.isEditable()).toList());
    assertFalse(readOnly.isEmpty());
    assertEquals(
        "a new file has nothing on the left", "", Edt.call(() -> Ui.textOf(readOnly.get(0))));
    Edt.call(
        () -> {
          Document doc = right.getDocument();
          doc.insertString(doc.getLength(), "edited\n", null);
          return null;
        });
    Edt.call(
        () -> {
          KeyEvent ctrlS =
              new KeyEvent(
                  right,
                  KeyEvent.KEY_PRESSED,
                  System.currentTimeMillis(),
                  InputEvent.CTRL_DOWN_MASK,
                  KeyEvent.VK_S,
                  KeyEvent.CHAR_UNDEFINED);
          // Straight to the editor pane, as the focus manager would with the keyboard focus there.
          KeyboardFocusManager.getCurrentKeyboardFocusManager().redispatchEvent(right, ctrlS);
          return null;
        });
    Json answer = outcome.get(60, TimeUnit.SECONDS);
    assertEquals(answer.toString(), "accepted", answer.path("status").asString());
    assertEquals(
        "the proposal's line separators survive",
        "brand new\r\nwith CRLF\r\nedited\r\n",
        answer.path("content").asString());
    assertFalse("the module never creates the file", Files.exists(created));
    Await.until(WAIT, () -> Edt.call(window::isOpened), open -> !open);
  }

  public void testClosingDiffWindowRejects() throws Exception {
    for (CliDriver cli : List.of(qwen, gemini)) {
      CompletableFuture<Json> outcome =
          cli.send(
              "openDiff",
              Map.of("filePath", HELLO.toString(), "newContent", "rejected by " + cli.cli + "\n"));
      TopComponent window = awaitDiffWindow("Hello.txt (Before \u2194 After)", outcome);
      assertTrue(Edt.call(window::close));
      Json answer = outcome.get(60, TimeUnit.SECONDS);
      assertEquals(cli.cli + ": " + answer, "rejected", answer.path("status").asString());
    }
    assertEquals(HELLO_TEXT, Files.readString(HELLO));
  }

  public void testCloseDiffFromCliClosesWindow() throws Exception {
    for (CliDriver cli : List.of(qwen, gemini)) {
      String proposal = "closed by " + cli.cli + "\n";
      CompletableFuture<Json> outcome =
          cli.send("openDiff", Map.of("filePath", HELLO.toString(), "newContent", proposal));
      TopComponent window = awaitDiffWindow("Hello.txt (Before \u2194 After)", outcome);
      JEditorPane right = Ui.awaitEditableRightSide(window, proposal);
      Edt.call(
          () -> {
            right.getDocument().insertString(0, "edited ", null);
            return null;
          });
      Json closed = cli.call("closeDiff", Map.of("filePath", HELLO.toString()));
      assertEquals(
          cli.cli + ": the right side as edited",
          "edited " + proposal,
          closed.path("content").asString());
      Await.until(WAIT, () -> Edt.call(window::isOpened), open -> !open);
      Json answer = outcome.get(60, TimeUnit.SECONDS);
      assertEquals(cli.cli + ": " + answer, "rejected", answer.path("status").asString());
    }
  }

  public void testAcceptOfReplacedProposalSendsNothing() throws Exception {
    String title = "Hello.txt (Before \u2194 After)";
    CompletableFuture<Json> fromQwen =
        qwen.send("openDiff", Map.of("filePath", HELLO.toString(), "newContent", "from qwen\n"));
    TopComponent qwenWindow = awaitDiffWindow(title, fromQwen);
    Ui.awaitEditableRightSide(qwenWindow, "from qwen\n");
    AbstractButton accept =
        Edt.call(() -> Ui.find(qwenWindow, AbstractButton.class, DiffTopComponentNames.ACCEPT));

    // Gemini's proposal for the same file replaces Qwen's. All in one EDT turn, so that the user
    // accepts in Qwen's window before the companion gets to close it: the Accept comes too late.
    AtomicReference<CompletableFuture<Json>> fromGemini = new AtomicReference<>();
    String status =
        Edt.call(
            () -> {
              fromGemini.set(
                  gemini.send(
                      "openDiff",
                      Map.of("filePath", HELLO.toString(), "newContent", "from gemini\n")));
              Json replaced = fromQwen.get(60, TimeUnit.SECONDS);
              assertEquals(
                  "qwen hears its proposal was turned down: " + replaced,
                  "rejected",
                  replaced.path("status").asString());
              assertTrue(qwenWindow.isOpened());
              accept.doClick();
              return StatusDisplayer.getDefault().getStatusText();
            });
    assertEquals(
        "This proposal for Hello.txt was replaced by a newer one; nothing was written", status);
    assertFalse(Edt.call(qwenWindow::isOpened));

    // Gemini's proposal is still pending in its own window. A context update sent after the
    // Accept reaches Gemini after any outcome sent before it, so none was.
    TopComponent geminiWindow = awaitDiffWindow(title, fromGemini.get());
    Ui.awaitEditableRightSide(geminiWindow, "from gemini\n");
    JEditorPane pane = Ui.openInEditor(HELLO);
    Edt.call(
        () -> {
          pane.setCaretPosition(HELLO_TEXT.indexOf("Hello"));
          return null;
        });
    awaitActiveFile(gemini, HELLO, 2, 1);
    assertFalse(
        "gemini got no outcome: " + fromGemini.get().getNow(null), fromGemini.get().isDone());
    assertTrue(Edt.call(geminiWindow::isOpened));

    assertTrue(Edt.call(geminiWindow::close));
    Json answer = fromGemini.get().get(60, TimeUnit.SECONDS);
    assertEquals(answer.toString(), "rejected", answer.path("status").asString());
    assertEquals(HELLO_TEXT, Files.readString(HELLO));
  }

  public void testOptionsPanelTurnsDiscoveryFilesOffAndOn() throws Exception {
    int oldPort = geminiDiscovery().orElseThrow().path("port").asInt();
    OptionsPanelController options = Ui.companionOptions();
    JComponent panel = Edt.call(() -> options.getComponent(Lookup.EMPTY));
    JCheckBox geminiBox = Edt.call(() -> Ui.find(panel, JCheckBox.class, "companion4j.gemini"));
    assertTrue(Edt.call(geminiBox::isSelected));
    assertTrue(Edt.call(() -> Ui.find(panel, JCheckBox.class, "companion4j.qwen").isSelected()));
    assertTrue(
        "unchosen, the chat's path is the ACP agent qwen",
        Edt.call(
            () ->
                Ui.find(panel, JRadioButton.class, "companion4j.chatAcp").isSelected()
                    && "qwen"
                        .equals(
                            Ui.find(panel, JTextField.class, "companion4j.acpAgent").getText())));
    Edt.call(
        () -> {
          geminiBox.doClick();
          options.applyChanges();
          return null;
        });
    // The companion restarts on a new port with Qwen Code's files only.
    Json lock =
        Await.until(
            WAIT,
            () -> qwenLock().orElse(null),
            l -> l != null && l.path("port").asInt() != oldPort);
    assertTrue(geminiFiles().isEmpty());
    int newPort = lock.path("port").asInt();
    Await.until(WAIT, () -> statusText(), t -> t.startsWith("CLI companion :" + newPort));

    Edt.call(
        () -> {
          options.update();
          geminiBox.doClick();
          options.applyChanges();
          return null;
        });
    Await.until(
        WAIT,
        () -> geminiDiscovery().orElse(null),
        f -> f != null && f.path("port").asInt() != newPort);
  }

  public void testDeactivatingModuleRemovesDiscoveryFiles() throws Exception {
    UpdateUnit unit =
        UpdateManager.getDefault().getUpdateUnits(UpdateManager.TYPE.MODULE).stream()
            .filter(u -> "dev.companion4j.netbeans".equals(u.getCodeName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the module is installed"));
    int port = geminiDiscovery().orElseThrow().path("port").asInt();

    // What Tools > Plugins > Installed > Deactivate does: the modules that need this one (its Java
    // support) go with it, and come back with it.
    OperationContainer<OperationSupport> disable = OperationContainer.createForDirectDisable();
    OperationContainer.OperationInfo<OperationSupport> companion = disable.add(unit.getInstalled());
    Set<UpdateElement> dependents = companion.getRequiredElements();
    disable.add(dependents);
    disable.getSupport().doOperation(null);
    Await.until(WAIT, () -> geminiFiles().isEmpty() && qwenLockFiles().isEmpty());

    OperationContainer<OperationSupport> enable = OperationContainer.createForEnable();
    enable.add(unit.getInstalled());
    enable.add(dependents);
    enable.getSupport().doOperation(null);
    Json file = Await.until(WAIT, () -> geminiDiscovery().orElse(null), f -> f != null);
    assertTrue(file.path("port").asInt() != port);
    assertEquals(
        "a re-enabled module finds the open projects",
        WORKSPACE.toString(),
        file.path("workspacePath").asString());
    Await.until(WAIT, () -> !qwenLockFiles().isEmpty());
  }

  public void testExitRemovesDiscoveryFiles() throws Exception {
    for (CliDriver cli : List.of(qwen, gemini)) {
      cli.close();
    }
    try (CliDriver late = CliDriver.start("qwen", WORKSPACE, BUILD.resolve("cli-logs"))) {
      assertEquals("connected", late.call("connect").path("status").asString());
      // A diff still waiting for the user must neither hold the exit up nor survive it.
      CompletableFuture<Json> outcome =
          late.send(
              "openDiff", Map.of("filePath", HELLO.toString(), "newContent", "pending at exit\n"));
      TopComponent window = awaitDiffWindow("Hello.txt (Before \u2194 After)", outcome);

      OpenProjects.getDefault().close(OpenProjects.getDefault().getOpenProjects());
      Await.until(
          WAIT,
          () -> geminiDiscovery().map(f -> f.path("workspacePath").asString()).orElse("?"),
          String::isEmpty);
      Path geminiFile = geminiFiles().get(0);
      Path lock = qwenLockFiles().get(0);

      // The exit path NetBeans takes from File > Exit, minus the final System.exit.
      System.setProperty("netbeans.close.no.exit", "true");
      LifecycleManager.getDefault().exit();
      Await.until(WAIT, () -> !Files.exists(geminiFile) && !Files.exists(lock));
      assertTrue(geminiFiles().isEmpty());
      assertTrue(qwenLockFiles().isEmpty());
      // The window closes after the companion stopped, when the EDT gets to it.
      Await.until(WAIT, () -> Edt.call(window::isOpened), open -> !open);
      assertEquals(HELLO_TEXT, Files.readString(HELLO));
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static Json awaitActiveFile(CliDriver cli, Path file, int line, int character)
      throws Exception {
    try {
      return awaitActiveFileOrNull(cli, file, line, character);
    } catch (AssertionError e) {
      throw new AssertionError(
          cli.cli
              + " never saw "
              + file
              + " active at "
              + line
              + ":"
              + character
              + "; its context: "
              + cli.context(),
          e);
    }
  }

  private static Json awaitActiveFileOrNull(CliDriver cli, Path file, int line, int character)
      throws Exception {
    return Await.until(
        WAIT,
        () -> {
          Json files = cli.context() == null ? null : cli.context().at("/workspaceState/openFiles");
          if (files == null || !files.isArray()) {
            return null;
          }
          for (Json f : files) {
            if (f.path("isActive").asBoolean()
                && f.path("path").asString().equals(file.toString())
                && f.at("/cursor/line").asInt() == line
                && f.at("/cursor/character").asInt() == character) {
              return f;
            }
          }
          return null;
        },
        f -> f != null);
  }

  private static List<String> openFilePaths(CliDriver cli) {
    List<String> paths = new ArrayList<>();
    Json context = cli.context();
    if (context != null) {
      context.at("/workspaceState/openFiles").forEach(f -> paths.add(f.path("path").asString()));
    }
    return paths;
  }

  private static TopComponent awaitDiffWindow(String title, CompletableFuture<Json> outcome)
      throws Exception {
    return Await.until(
        WAIT,
        () -> {
          if (outcome.isDone()) {
            throw new AssertionError(
                "openDiff ended before the window was found: " + outcome.getNow(null));
          }
          return Edt.call(
              () -> {
                for (TopComponent tc : TopComponent.getRegistry().getOpened()) {
                  if (title.equals(tc.getDisplayName())) {
                    return tc;
                  }
                }
                return null;
              });
        },
        tc -> tc != null);
  }

  private static JLabel statusLabel() {
    for (StatusLineElementProvider p :
        Lookup.getDefault().lookupAll(StatusLineElementProvider.class)) {
      if (p.getStatusLineElement() instanceof JLabel label
          && "companion4j.status".equals(label.getName())) {
        return label;
      }
    }
    throw new AssertionError("the companion's status-bar item is registered");
  }

  private static String statusText() throws Exception {
    return Edt.call(() -> statusLabel().getText());
  }

  /** The strip of the main window's status bar around the companion's item. */
  private static Rectangle statusBarArea() throws Exception {
    return Edt.call(
        () -> {
          JLabel label = statusLabel();
          Frame main = WindowManager.getDefault().getMainWindow();
          Point labelAt = SwingUtilities.convertPoint(label, 0, 0, main);
          int width = Math.min(main.getWidth(), 760);
          return new Rectangle(
              main.getWidth() - width, labelAt.y - 6, width, label.getHeight() + 12);
        });
  }

  /** The first of this IDE's Gemini discovery files that still exists when read. */
  private static Optional<Json> geminiDiscovery() throws IOException {
    for (Path file : geminiFiles()) {
      Optional<Json> content = read(file);
      if (content.isPresent()) {
        return content;
      }
    }
    return Optional.empty();
  }

  private static List<Path> geminiFiles() throws IOException {
    Path dir = Path.of(System.getenv("TMPDIR"), "gemini", "ide");
    return list(dir, "gemini-ide-server-" + PID + "-");
  }

  /**
   * The first of this IDE's Qwen Code lock files, as read once: a restart may remove it meanwhile.
   */
  private static Optional<Json> qwenLock() throws IOException {
    return qwenLocks().values().stream().findFirst();
  }

  private static List<Path> qwenLockFiles() throws IOException {
    return List.copyOf(qwenLocks().keySet());
  }

  private static Map<Path, Json> qwenLocks() throws IOException {
    Path dir = Path.of(System.getenv("QWEN_HOME"), "ide");
    Map<Path, Json> ours = new LinkedHashMap<>();
    for (Path lock : list(dir, "")) {
      if (lock.toString().endsWith(".lock")) {
        read(lock)
            .filter(json -> json.path("ppid").asLong() == PID)
            .ifPresent(json -> ours.put(lock, json));
      }
    }
    return ours;
  }

  private static List<Path> list(Path dir, String prefix) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(
              f ->
                  f.getFileName().toString().startsWith(prefix)
                      && !f.getFileName().toString().startsWith("."))
          .toList();
    }
  }

  /** The file's JSON, or empty when it was removed after being listed. */
  private static Optional<Json> read(Path file) throws IOException {
    try {
      return Optional.of(Json.parse(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (java.nio.file.NoSuchFileException gone) {
      return Optional.empty();
    }
  }

  /** The names the module gives its diff window's buttons. */
  private static final class DiffTopComponentNames {
    static final String ACCEPT = "companion4j.accept";
  }
}
