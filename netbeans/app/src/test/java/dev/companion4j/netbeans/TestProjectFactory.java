package dev.companion4j.netbeans;

import java.io.IOException;
import org.netbeans.api.project.Project;
import org.netbeans.spi.project.ProjectFactory;
import org.netbeans.spi.project.ProjectState;
import org.openide.filesystems.FileObject;
import org.openide.util.Lookup;
import org.openide.util.lookup.ServiceProvider;

/**
 * Makes any folder holding a {@value #MARKER} file a project, as Maven or Ant projects would be.
 */
@ServiceProvider(service = ProjectFactory.class)
public final class TestProjectFactory implements ProjectFactory {
  static final String MARKER = "companion4j-test-project";

  @Override
  public boolean isProject(FileObject dir) {
    return dir.getFileObject(MARKER) != null;
  }

  @Override
  public Project loadProject(FileObject dir, ProjectState state) throws IOException {
    return isProject(dir) ? new FolderProject(dir) : null;
  }

  @Override
  public void saveProject(Project project) {}

  private record FolderProject(FileObject getProjectDirectory) implements Project {
    @Override
    public Lookup getLookup() {
      return Lookup.EMPTY;
    }
  }
}
