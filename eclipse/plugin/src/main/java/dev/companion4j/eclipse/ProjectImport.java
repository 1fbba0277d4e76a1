package dev.companion4j.eclipse;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;

/**
 * Opens the folders scripts/run-eclipse.sh names as projects of the workspace, as File > Import >
 * Existing Projects would: a folder with a {@code .project} keeps its name, any other becomes a
 * plain project named after the folder. The folders stay where they are.
 */
final class ProjectImport {
  /** The folders, absolute, separated by the platform's path separator. */
  static final String PROPERTY = "companion4j.eclipse.projects";

  private ProjectImport() {}

  static void fromSystemProperty() {
    String value = System.getProperty(PROPERTY, "");
    for (String folder : value.split(File.pathSeparator)) {
      if (!folder.isBlank()) {
        open(Path.of(folder).toAbsolutePath().normalize());
      }
    }
  }

  private static void open(Path folder) {
    if (!Files.isDirectory(folder)) {
      Activator.log().error("Not imported as a project: " + folder + " is no folder");
      return;
    }
    IWorkspace workspace = ResourcesPlugin.getWorkspace();
    try {
      IProjectDescription description;
      IPath location = IPath.fromPath(folder);
      if (Files.isRegularFile(folder.resolve(IProjectDescription.DESCRIPTION_FILE_NAME))) {
        description =
            workspace.loadProjectDescription(
                location.append(IProjectDescription.DESCRIPTION_FILE_NAME));
      } else {
        description = workspace.newProjectDescription(folder.getFileName().toString());
      }
      // A folder directly in the workspace folder is the project's default place, which Eclipse
      // wants given as none.
      IPath rootLocation = workspace.getRoot().getLocation();
      description.setLocation(
          location.removeLastSegments(1).equals(rootLocation) ? null : location);
      IProject project = workspace.getRoot().getProject(description.getName());
      if (!project.exists()) {
        project.create(description, null);
      }
      project.open(null);
    } catch (CoreException e) {
      Activator.log().error("Not imported as a project: " + folder + ": " + e.getMessage(), e);
    }
  }
}
