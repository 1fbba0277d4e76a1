package dev.companion4j.netbeans;

import dev.companion4j.engine.ConnectedClient;
import java.awt.BorderLayout;
import java.awt.Dimension;
import java.awt.Font;
import java.awt.Toolkit;
import java.awt.datatransfer.StringSelection;
import java.nio.file.Path;
import java.util.Map;
import javax.swing.JButton;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTextArea;
import org.openide.DialogDescriptor;
import org.openide.DialogDisplayer;

/** What a user needs to connect a CLI by hand: the variables to paste and where the files are. */
final class StatusDialog {
  static final String TEXT_NAME = "companion4j.statusText";

  private StatusDialog() {}

  static void show() {
    CompanionService.Status s = CompanionService.getDefault().status();
    JTextArea text = new JTextArea(report(s), 18, 90);
    text.setName(TEXT_NAME);
    text.setEditable(false);
    text.setFont(new Font(Font.MONOSPACED, Font.PLAIN, text.getFont().getSize()));
    text.setCaretPosition(0);
    JPanel panel = new JPanel(new BorderLayout(0, 6));
    panel.add(new JScrollPane(text), BorderLayout.CENTER);
    panel.setPreferredSize(new Dimension(760, 360));

    JButton copy = new JButton("Copy Variables");
    copy.setEnabled(s.running());
    copy.addActionListener(
        e ->
            Toolkit.getDefaultToolkit()
                .getSystemClipboard()
                .setContents(new StringSelection(exports(s.terminalEnvironment())), null));
    JButton restart = new JButton("Restart Companion");
    restart.addActionListener(e -> CompanionService.getDefault().restart());
    DialogDescriptor d = new DialogDescriptor(panel, "Qwen Code / Gemini CLI Companion");
    d.setOptions(new Object[] {copy, restart, DialogDescriptor.CLOSED_OPTION});
    d.setClosingOptions(new Object[] {restart, DialogDescriptor.CLOSED_OPTION});
    DialogDisplayer.getDefault().notifyLater(d);
  }

  static String report(CompanionService.Status s) {
    if (!s.running()) {
      return "The companion is not running"
          + (s.failure() == null ? "." : ": " + s.failure())
          + "\nRestart it here or in Tools > Options > Miscellaneous > CLI Companion.";
    }
    StringBuilder out = new StringBuilder();
    out.append("Listening on 127.0.0.1:").append(s.port()).append('\n');
    out.append("Workspace: ")
        .append(s.workspacePath().isEmpty() ? "(no project open)" : s.workspacePath())
        .append('\n');
    out.append("Connected CLIs: ");
    if (s.clients().isEmpty()) {
      out.append("none");
    }
    for (int i = 0; i < s.clients().size(); i++) {
      ConnectedClient c = s.clients().get(i);
      out.append(i == 0 ? "" : ", ").append(c.label());
    }
    out.append("\nPending diffs: ").append(s.pendingDiffs().size()).append("\n\n");
    out.append(
        "Run qwen or gemini in a terminal whose directory is inside an open project; it finds\n");
    out.append(
        "this IDE by itself. When several IDEs show the same folder, pin the terminal to this one:\n\n");
    out.append(exports(s.terminalEnvironment())).append('\n');
    out.append("Discovery files:\n");
    for (Path file : s.discoveryFiles()) {
      out.append("  ").append(file).append('\n');
    }
    return out.toString();
  }

  static String exports(Map<String, String> env) {
    boolean windows = System.getProperty("os.name", "").startsWith("Windows");
    StringBuilder out = new StringBuilder();
    env.forEach(
        (name, value) -> {
          String quoted = "'" + value.replace("'", windows ? "''" : "'\\''") + "'";
          out.append(windows ? "$env:" + name + " = " + quoted : "export " + name + "=" + quoted)
              .append('\n');
        });
    return out.toString();
  }
}
