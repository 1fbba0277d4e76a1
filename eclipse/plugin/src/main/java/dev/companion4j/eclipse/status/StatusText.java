package dev.companion4j.eclipse.status;

import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.PendingDiff;
import java.nio.file.Path;
import java.util.List;

/** The words the status line and the view use, as the NetBeans module's status bar has them. */
final class StatusText {
  private StatusText() {}

  /** The status line: {@code CLI companion :PORT · Qwen Code} (the one CLI), {@code · 2 CLIs}, … */
  static String line(StatusSnapshot s) {
    if (!s.running()) {
      return "CLI companion: off";
    }
    StringBuilder text = new StringBuilder("CLI companion :").append(s.port()).append(" \u00b7 ");
    List<ConnectedClient> clients = s.clients();
    if (clients.isEmpty()) {
      text.append("no CLI");
    } else if (clients.size() == 1) {
      text.append(program(clients.get(0)));
    } else {
      text.append(clients.size()).append(" CLIs");
    }
    int diffs = s.pendingDiffs().size();
    if (diffs > 0) {
      text.append(" \u00b7 ").append(diffs).append(diffs == 1 ? " diff" : " diffs");
    }
    return text.toString();
  }

  /** The status line's tooltip: where it serves and each CLI by its label. */
  static String tooltip(StatusSnapshot s) {
    if (!s.running()) {
      return "Qwen Code / Gemini CLI companion is not running"
          + (s.failure() == null ? "" : ": " + s.failure())
          + "\nClick for details";
    }
    StringBuilder text =
        new StringBuilder("Qwen Code / Gemini CLI companion on 127.0.0.1:").append(s.port());
    text.append(s.clients().isEmpty() ? "\nNo CLI connected" : "\nConnected:");
    for (ConnectedClient c : s.clients()) {
      text.append("\n  ").append(c.label());
    }
    return text.append("\nClick for details").toString();
  }

  /** The view's report: what NetBeans' status dialog says, proposals listed beside it. */
  static String report(StatusSnapshot s) {
    if (!s.running()) {
      return "The companion is not running"
          + (s.failure() == null ? "." : ": " + s.failure())
          + "\nRestart it here, or change its settings in Window > Preferences > CLI Companion.";
    }
    StringBuilder out = new StringBuilder();
    out.append("Listening on 127.0.0.1:").append(s.port()).append('\n');
    out.append("Workspace:");
    lines(out, s.roots(), "(no project open)");
    out.append("Connected CLIs:");
    if (s.clients().isEmpty()) {
      out.append(" none\n");
    }
    for (ConnectedClient c : s.clients()) {
      out.append("\n  ").append(c.label());
    }
    out.append(s.clients().isEmpty() ? "" : "\n");
    out.append("Pending diffs: ").append(s.pendingDiffs().size()).append('\n');
    out.append("Discovery files:");
    lines(out, s.discoveryFiles(), "none (Window > Preferences > CLI Companion)");
    out.append("\nRun qwen or gemini in a terminal whose directory is inside an open project;\n")
        .append("it finds this IDE by its discovery files.\n");
    return out.toString();
  }

  /** A proposal's row in the view: the file and who proposed it. */
  static String proposal(PendingDiff d, List<ConnectedClient> clients) {
    String from = d.proposerName();
    if (from == null) {
      from =
          clients.stream()
              .filter(c -> c.id().equals(d.clientId()))
              .map(StatusText::program)
              .findFirst()
              .orElse("a CLI");
    }
    Path folder = d.path().getParent();
    return d.path().getFileName()
        + (folder == null ? "" : " \u2014 " + folder)
        + " (from "
        + from
        + ")";
  }

  private static String program(ConnectedClient c) {
    return c.process().program().isEmpty() ? c.name() : c.process().program();
  }

  private static void lines(StringBuilder out, List<Path> paths, String none) {
    if (paths.isEmpty()) {
      out.append(' ').append(none).append('\n');
      return;
    }
    for (Path p : paths) {
      out.append("\n  ").append(p);
    }
    out.append('\n');
  }
}
