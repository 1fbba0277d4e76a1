package dev.companion4j.netbeans;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import javax.swing.AbstractButton;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JTextArea;
import junit.framework.Test;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.filesystems.FileUtil;
import org.openide.windows.TopComponent;

/**
 * Boots a real NetBeans platform (GUI, under Xvfb) with Java support and the companion module; the
 * chat window's ACP agent, the real {@code qwen --acp} of Qwen Code 0.24.4, gets the companion's
 * IDE tools at {@code session/new}: its {@code get_diagnostics} answers NetBeans' own javac error
 * in an open file, and the fake model, which repeats what a tool gave it, receives that error.
 */
public class NetBeansAcpIdeToolsIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 120));
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final String JAVAC_ERROR =
      "line 5, column 21: error: incompatible types: String cannot be converted to int";

  public NetBeansAcpIdeToolsIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansAcpIdeToolsIT.class)
        .addTest("testTheAgentsGetDiagnosticsAnswersNetBeansJavacError")
        .suite();
  }

  /** The agent under test: {@code qwen}; its peer's kind in upper case. */
  protected String agent() {
    return "qwen";
  }

  /**
   * Has the model call {@code get_diagnostics} and returns what it received from the call, as it
   * repeats it ({@code Tool said: …}), once the turn's answer is the {@code n}th.
   */
  private String askForDiagnostics(TopComponent chat, int n) throws Exception {
    Await.until(
        WAIT,
        () -> Edt.call(() -> Ui.find(chat, AbstractButton.class, "companion4j.chat.send")),
        AbstractButton::isEnabled);
    Edt.call(
        () -> {
          Ui.find(chat, JTextArea.class, "companion4j.chat.input")
              .setText(
                  "What is wrong? " + NetBeansIdeToolsIT.call(agent(), "get_diagnostics", "{}"));
          return null;
        });
    Ui.click(chat, "companion4j.chat.send");
    // In mode default the agent may ask before an MCP tool runs; the user allows it.
    String log =
        Await.until(
            WAIT,
            () -> {
              JComponent card = Edt.call(() -> Ui.permissionCard(chat));
              if (card != null) {
                Ui.clickOption(card, "allow_once");
              }
              return Edt.call(
                  () -> Ui.textOf(Ui.find(chat, JEditorPane.class, "companion4j.chat.log")));
            },
            t -> t.split("Tool said:", -1).length > n);
    return log.substring(log.lastIndexOf("Tool said:"));
  }

  public void testTheAgentsGetDiagnosticsAnswersNetBeansJavacError() throws Exception {
    Path root = BUILD.resolve("acp-tools-" + agent());
    Path workspace = root.resolve("workspace");
    Ui.freshProjectFolder(workspace);
    Path broken = workspace.resolve("src/app/Broken.java");
    Files.createDirectories(broken.getParent());
    Files.writeString(broken, NetBeansIdeToolsIT.BROKEN_TEXT);
    try (AgentPeer peer =
        AgentPeer.start(
            agent().toUpperCase(Locale.ROOT),
            root,
            BUILD.resolve("cli-logs").resolve("acp-tools-" + agent() + ".log"))) {
      Project project =
          ProjectManager.getDefault().findProject(FileUtil.toFileObject(workspace.toFile()));
      OpenProjects.getDefault().open(new Project[] {project}, false);
      Await.until(WAIT, () -> OpenProjects.getDefault().getOpenProjects().length == 1);
      Ui.openInEditor(broken);
      // NetBeans parses the new file (and indexes the JDK on first use) before its error exists.
      Await.until(
          WAIT,
          Duration.ofMillis(500),
          () -> NetBeansIdeToolsIT.companionGet("/ide/diagnostics?path=" + broken),
          body -> body.contains("incompatible types"));

      Ui.chooseAcpAgent(peer.agent);
      TopComponent chat = Ui.openChatWindow();
      Await.until(
          WAIT,
          () -> Edt.call(() -> Ui.find(chat, JLabel.class, "companion4j.chat.state").getText()),
          "Connected \u00b7 approval: default"::equals);
      // Qwen Code 0.24.4 connects a session's MCP servers in the background and its ACP prompts
      // do not wait for them: asked in the first moment, it has no such tool yet, and is asked
      // again, as a user would.
      String received = "";
      for (int asked = 1; received.isEmpty() || received.contains("not registered"); asked++) {
        assertTrue("asked " + asked + " times: " + received, asked <= 5);
        received = askForDiagnostics(chat, asked);
      }
      assertTrue(received, received.contains("The editor reports 1 error."));
      assertTrue(received, received.contains(broken + " (1 error)"));
      assertTrue(received, received.contains(JAVAC_ERROR));

      Edt.call(
          () -> {
            chat.close();
            return null;
          });
    }
  }
}
