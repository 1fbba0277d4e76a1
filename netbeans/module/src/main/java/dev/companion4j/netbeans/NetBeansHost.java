package dev.companion4j.netbeans;

import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.DiffViewException;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingDiff;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ui.OpenProjects;
import org.openide.filesystems.FileUtil;

/**
 * The IDE as the engine sees it: open projects as workspace roots, diffs as NetBeans diff windows.
 * Every method runs on the engine thread; none waits for the EDT longer than a few seconds, since
 * the EDT may itself be waiting for the companion to stop.
 */
final class NetBeansHost implements CompanionHost {
  static final IdeInfo IDE_INFO = new IdeInfo("netbeans", "Apache NetBeans");

  private final DiffWindows diffWindows;

  NetBeansHost(DiffWindows diffWindows) {
    this.diffWindows = diffWindows;
  }

  @Override
  public IdeInfo ideInfo() {
    return IDE_INFO;
  }

  @Override
  public List<Path> workspaceRoots() {
    List<Path> roots = new ArrayList<>();
    for (Project project : OpenProjects.getDefault().getOpenProjects()) {
      File dir = FileUtil.toFile(project.getProjectDirectory());
      // Projects on virtual file systems (archives, remote) have no directory a CLI could run in.
      if (dir != null) {
        roots.add(dir.toPath());
      }
    }
    return roots;
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) throws DiffViewException {
    diffWindows.show(diff, review);
  }

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return diffWindows.close(diff);
  }
}
