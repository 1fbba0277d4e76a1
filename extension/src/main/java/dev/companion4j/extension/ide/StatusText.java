package dev.companion4j.extension.ide;

import dev.companion4j.engine.CompanionStatus;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** The companion's status in the few lines a model reads. */
public final class StatusText {
  private StatusText() {}

  /**
   * Everything {@code ide_status} tells: editor, roots, active file, selection, open files, CLIs,
   * diffs.
   */
  public static String of(CompanionStatus s) {
    StringBuilder text = header(s);
    if (s.activeFile() == null) {
      text.append("Active file: none\n");
    } else {
      text.append("Active file: ").append(s.activeFile().path());
      if (s.activeFile().line() > 0) {
        text.append(" (cursor at line ")
            .append(s.activeFile().line())
            .append(", character ")
            .append(s.activeFile().character())
            .append(')');
      }
      text.append('\n');
      if (s.activeFile().selectedText() != null && !s.activeFile().selectedText().isEmpty()) {
        text.append("Selection:\n").append(s.activeFile().selectedText()).append('\n');
      }
    }
    if (s.openFiles().size() > 1) {
      text.append("Other open files: ")
          .append(String.join(", ", s.openFiles().subList(1, s.openFiles().size())))
          .append('\n');
    }
    text.append("Connected CLIs: ")
        .append(
            s.clients().isEmpty()
                ? "none"
                : s.clients().stream()
                    .map(CompanionStatus.Client::label)
                    .collect(Collectors.joining(", ")))
        .append('\n');
    text.append("Diffs waiting for review: ")
        .append(
            s.pendingDiffs().isEmpty()
                ? "none"
                : s.pendingDiffs().stream()
                    .map(d -> d.filePath() + " (id " + d.id() + ")")
                    .collect(Collectors.joining(", ")));
    return text.toString();
  }

  /** The editor, the roots and the active file: what a session or an agent starts with. */
  public static String brief(CompanionStatus s) {
    StringBuilder text = header(s);
    text.append("Active file: ").append(s.activeFile() == null ? "none" : s.activeFile().path());
    if (!s.pendingDiffs().isEmpty()) {
      text.append("\nDiffs waiting for review: ").append(s.pendingDiffs().size());
    }
    return text.toString();
  }

  private static StringBuilder header(CompanionStatus s) {
    return new StringBuilder()
        .append("Editor: ")
        .append(s.ide().displayName())
        .append(" (Companion4J companion on port ")
        .append(s.port())
        .append(")\n")
        .append("Workspace roots: ")
        .append(s.workspaceRoots().isEmpty() ? "none" : String.join(", ", s.workspaceRoots()))
        .append('\n');
  }

  /** What to say when no companion serves {@code workspace}. */
  public static String none(Path workspace) {
    return "No IDE companion serves "
        + workspace
        + ". Open this folder in an editor with Companion4J, or run "
        + "`companion4j serve` in it; then IDE mode and these tools work.";
  }
}
