package dev.companion4j.netbeans;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.netbeans.api.java.classpath.ClassPath;
import org.netbeans.api.java.classpath.GlobalPathRegistry;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.spi.java.classpath.ClassPathProvider;
import org.netbeans.spi.java.classpath.support.ClassPathSupport;
import org.openide.filesystems.FileObject;
import org.openide.filesystems.FileUtil;
import org.openide.util.lookup.ServiceProvider;

/**
 * The class path of a test project's {@code src} folder, as a Maven or Ant project gives it. The
 * IDE's Java platform module is not on Maven Central for this release, and without it the default
 * platform's boot class path is empty on JDK 9+; so BOOT is a jar of the running JDK's java.base,
 * made once.
 */
@ServiceProvider(service = ClassPathProvider.class)
public final class TestClassPathProvider implements ClassPathProvider {
  private static ClassPath boot;
  // One ClassPath instance per root: a new one per query makes JavacParser warn "ClassPath identity
  // changed" and reparse.
  private static final java.util.Map<FileObject, ClassPath> SOURCES =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Opens the test project in {@code workspace} as NetBeans opens a Java project: the project, and
   * its {@code src} root and the boot class path in the global registry, which NetBeans indexes
   * (where-used, type search and subtypes read that index).
   */
  static void openJavaProject(Path workspace) throws IOException {
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(workspace.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);
    ClassPath source =
        new TestClassPathProvider()
            .findClassPath(
                FileUtil.toFileObject(workspace.resolve("src").toFile()), ClassPath.SOURCE);
    GlobalPathRegistry.getDefault().register(ClassPath.BOOT, new ClassPath[] {boot()});
    GlobalPathRegistry.getDefault().register(ClassPath.SOURCE, new ClassPath[] {source});
  }

  @Override
  public ClassPath findClassPath(FileObject file, String type) {
    FileObject root = sourceRoot(file);
    if (root == null) {
      return null;
    }
    switch (type) {
      case ClassPath.SOURCE:
        return SOURCES.computeIfAbsent(root, r -> ClassPathSupport.createClassPath(r));
      case ClassPath.BOOT:
        return boot();
      case ClassPath.COMPILE:
        return ClassPath.EMPTY;
      default:
        return null;
    }
  }

  private static FileObject sourceRoot(FileObject file) {
    for (FileObject f = file; f != null; f = f.getParent()) {
      if (f.isFolder()
          && f.getNameExt().equals("src")
          && f.getParent() != null
          && f.getParent().getFileObject(TestProjectFactory.MARKER) != null) {
        return f;
      }
    }
    return null;
  }

  static synchronized ClassPath boot() {
    if (boot == null) {
      try {
        Path jar = Path.of(System.getProperty("companion4j.buildDir"), "jdk-boot", "java.base.jar");
        if (!Files.exists(jar)) {
          writeJavaBase(jar);
        }
        FileObject root = FileUtil.getArchiveRoot(FileUtil.toFileObject(jar.toFile()));
        boot = ClassPathSupport.createClassPath(root);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return boot;
  }

  private static void writeJavaBase(Path jar) throws IOException {
    Files.createDirectories(jar.getParent());
    Path tmp = jar.resolveSibling("java.base.jar.tmp");
    FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
    Path base = jrt.getPath("modules", "java.base");
    try (OutputStream out = Files.newOutputStream(tmp);
        ZipOutputStream zip = new ZipOutputStream(out);
        Stream<Path> all = Files.walk(base)) {
      for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
        zip.putNextEntry(new ZipEntry(base.relativize(p).toString()));
        Files.copy(p, zip);
        zip.closeEntry();
      }
    }
    Files.move(tmp, jar);
  }
}
