package dev.companion4j.engine.discovery;

import dev.companion4j.engine.IdeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Writes, rewrites and removes one companion's discovery files, for every generation the CLIs
 * read. Files are the owner's alone (0600, in 0700 directories the companion creates) and
 * replaced atomically, so a CLI never reads half a file.
 */
public final class DiscoveryFiles {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryFiles.class);
  private static final JsonFactory JSON_FACTORY = new JsonFactory();
  private static final boolean POSIX =
      java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

  /** The legacy file is named by pid alone: only one companion per process may own it. */
  private static final Set<Path> CLAIMED_LEGACY_FILES = ConcurrentHashMap.newKeySet();

  private final DiscoveryLocations locations;
  private final Set<DiscoveryTarget> targets;
  private final long pid;
  private final List<Path> written = new ArrayList<>();

  public DiscoveryFiles(DiscoveryLocations locations, Set<DiscoveryTarget> targets, long pid) {
    this.locations = locations;
    this.targets = targets.isEmpty() ? EnumSet.noneOf(DiscoveryTarget.class) : EnumSet.copyOf(targets);
    this.pid = pid;
  }

  /**
   * Writes (or rewrites) every enabled file for a companion on {@code port}.
   *
   * @return the files written
   */
  public synchronized List<Path> write(
      int port, String workspacePath, String authToken, IdeInfo ideInfo) throws IOException {
    byte[] bytes = content(port, workspacePath, authToken, ideInfo);

    List<Path> now = new ArrayList<>();
    for (DiscoveryFileKind kind : DiscoveryFileKind.values()) {
      if (!targets.contains(kind.target())) {
        continue;
      }
      Path file = kind.path(locations, pid, port);
      if (kind == DiscoveryFileKind.QWEN_LEGACY
          && !written.contains(file)
          && !CLAIMED_LEGACY_FILES.add(file)) {
        continue;
      }
      writeAtomically(file, bytes);
      now.add(file);
    }
    written.clear();
    written.addAll(now);
    return List.copyOf(now);
  }

  /**
   * The file's JSON. Written with Jackson's streaming generator: the discovery file comes first at
   * start-up, and setting up a data-binding mapper would cost a tenth of a second before it.
   */
  private byte[] content(int port, String workspacePath, String authToken, IdeInfo ideInfo) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator json = JSON_FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
      json.writeStartObject();
      json.writeNumberProperty("port", port);
      json.writeStringProperty("workspacePath", workspacePath);
      json.writeStringProperty("authToken", authToken);
      json.writeNumberProperty("ppid", pid);
      json.writeName("ideInfo");
      json.writeStartObject();
      json.writeStringProperty("name", ideInfo.name());
      json.writeStringProperty("displayName", ideInfo.displayName());
      json.writeEndObject();
      json.writeEndObject();
    }
    return out.toByteArray();
  }

  /** The files currently written. */
  public synchronized List<Path> files() {
    return List.copyOf(written);
  }

  /** Removes every file this companion wrote; safe to call twice. */
  public synchronized void removeAll() {
    for (Path file : written) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        log.warn("Could not remove discovery file {}: {}", file, e.getMessage());
      }
      CLAIMED_LEGACY_FILES.remove(file);
    }
    written.clear();
  }

  private static void writeAtomically(Path file, byte[] bytes) throws IOException {
    Path dir = file.getParent();
    createPrivateDirectories(dir);
    Path temp = POSIX
        ? Files.createTempFile(dir, ".companion4j-", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_FILE))
        : Files.createTempFile(dir, ".companion4j-", ".tmp");
    try {
      Files.write(temp, bytes);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Creates missing directories as owner-only; existing ones (such as /tmp) are left as they are. */
  static void createPrivateDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      createPrivateDirectories(parent);
    }
    FileAttribute<?>[] attrs =
        POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_DIR)} : new FileAttribute<?>[0];
    try {
      Files.createDirectory(dir, attrs);
    } catch (FileAlreadyExistsException raced) {
      // Another companion created it first; that is fine.
    }
  }
}
