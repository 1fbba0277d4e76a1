package dev.companion4j.engine.discovery;

import dev.companion4j.engine.IdeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 *
 * <p>Most of these places are shared with every local user, who may have been there first. A
 * generation whose place another user controls or could control (a directory of theirs, one
 * anybody may write, a link, or anything but this user's regular file at the file's own name) is
 * skipped with one log line, and the others are written: nobody can stop a companion by planting
 * names. A place that passes those checks but still cannot be written (read-only, full, a file
 * where a directory belongs) is this user's own setup and fails the write, as does a write in
 * which no file at all could be written: a companion no CLI can find should not serve. Each file
 * is recorded for {@link #removeAll} as soon as it is written, so a failure midway leaves none.
 */
public final class DiscoveryFiles {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryFiles.class);
  private static final JsonFactory JSON_FACTORY = new JsonFactory();
  private static final FileAttribute<?>[] OWNER_FILE = FileTrust.POSIX
      ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
      : new FileAttribute<?>[0];

  /** The legacy file is named by pid alone: only one companion per process may own it. */
  private static final Set<Path> CLAIMED_LEGACY_FILES = ConcurrentHashMap.newKeySet();

  private final DiscoveryLocations locations;
  private final Set<DiscoveryTarget> targets;
  private final long pid;
  private final Set<Path> written = new LinkedHashSet<>();

  public DiscoveryFiles(DiscoveryLocations locations, Set<DiscoveryTarget> targets, long pid) {
    this.locations = locations;
    this.targets = targets.isEmpty() ? EnumSet.noneOf(DiscoveryTarget.class) : EnumSet.copyOf(targets);
    this.pid = pid;
  }

  /**
   * Writes (or rewrites) every enabled file for a companion on {@code port}, skipping the
   * generations whose place cannot be trusted.
   *
   * @return the files written
   * @throws IOException when a trusted place cannot be written, or no file at all could be; the
   *     files written before stay recorded for {@link #removeAll}
   */
  public synchronized List<Path> write(
      int port, String workspacePath, String authToken, IdeInfo ideInfo) throws IOException {
    byte[] bytes = content(port, workspacePath, authToken, ideInfo);

    List<Path> now = new ArrayList<>();
    // Why each refused place was refused, and the files skipped for it: one log line per place.
    Map<String, List<String>> refused = new LinkedHashMap<>();
    try {
      for (DiscoveryFileKind kind : DiscoveryFileKind.values()) {
        if (!targets.contains(kind.target())) {
          continue;
        }
        Path file = kind.path(locations, pid, port);
        boolean claimed = kind == DiscoveryFileKind.QWEN_LEGACY && !written.contains(file);
        if (claimed && !CLAIMED_LEGACY_FILES.add(file)) {
          continue;
        }
        try {
          writeAtomically(file, kind.sharedUpTo(locations), bytes);
        } catch (FileTrust.Refused e) {
          release(claimed, file);
          refused.computeIfAbsent(e.getMessage(), why -> new ArrayList<>()).add(file.getFileName().toString());
          continue;
        } catch (IOException e) {
          release(claimed, file);
          throw new IOException("cannot write " + file + ": " + FileTrust.reason(e), e);
        }
        written.add(file);
        now.add(file);
      }
    } finally {
      refused.forEach((why, files) -> log.warn("Skipped discovery file {}: {}", String.join(", ", files), why));
    }
    if (now.isEmpty() && !refused.isEmpty()) {
      throw new IOException("no discovery file could be written: " + String.join("; ", refused.keySet()));
    }
    return List.copyOf(now);
  }

  private static void release(boolean claimed, Path legacyFile) {
    if (claimed) {
      CLAIMED_LEGACY_FILES.remove(legacyFile);
    }
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

  /** The files written and not yet removed. */
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

  /**
   * Writes through a fresh owner-only temporary file in a checked directory, renamed over the
   * file: rename replaces whatever is at the name and never follows a link there.
   */
  static void writeAtomically(Path file, Path sharedUpTo, byte[] bytes) throws IOException {
    Path dir = file.getParent();
    FileTrust.secureDirectory(dir, sharedUpTo, true);
    FileTrust.checkOwnRegularFile(file, Long.MAX_VALUE);
    // Created exclusively (O_EXCL under a random name), so never a planted link or FIFO.
    Path temp = Files.createTempFile(dir, ".companion4j-", ".tmp", OWNER_FILE);
    try {
      Files.write(temp, bytes, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        // Someone planted something at the name since the check (a sticky directory keeps
        // another user's file from being replaced): that is a refusal, not a failure.
        FileTrust.checkOwnRegularFile(file, Long.MAX_VALUE);
        throw e;
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
