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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Writes, rewrites and removes one companion's discovery files, for every generation the CLIs read.
 * Files are the owner's alone (0600, in 0700 directories the companion creates) and replaced
 * atomically, so a CLI never reads half a file.
 *
 * <p>Most of these places are shared with every local user, who may have been there first. A
 * generation whose place another user controls or could control (a directory of theirs, one anybody
 * may write, a link, or anything but this user's regular file at the file's own name) is skipped
 * with one log line, and the others are written: nobody can stop a companion by planting names. A
 * place that passes those checks but still cannot be written (read-only, full, a file where a
 * directory belongs) is this user's own setup and fails the write, as does a write in which no file
 * at all could be written: a companion no CLI can find should not serve. Each file is recorded for
 * {@link #removeAll} as soon as it is written, so a failure midway leaves none.
 */
public final class DiscoveryFiles {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryFiles.class);
  private static final JsonFactory JSON_FACTORY = new JsonFactory();
  private static final FileAttribute<?>[] OWNER_FILE =
      FileTrust.POSIX
          ? new FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
          }
          : new FileAttribute<?>[0];

  /** Deeper process trees exist, but no terminal sits that far below an IDE. */
  private static final int MAX_ANCESTORS = 16;

  private static final Duration REMOVE_READ_DEADLINE = Duration.ofSeconds(1);

  /** The legacy file is named by pid alone: only one companion per process may own it. */
  private static final Set<Path> CLAIMED_LEGACY_FILES = ConcurrentHashMap.newKeySet();

  private final DiscoveryLocations locations;
  private final Set<DiscoveryTarget> targets;
  private final long pid;
  private final List<Long> ancestors;

  /** Every file written and not yet removed. */
  private final Set<Path> written = new LinkedHashSet<>();

  /**
   * The written files another companion beside this one may take over (a legacy name of a shared
   * ancestor's pid), with the bytes written to each; every other name holds this process's pid or
   * port, which no other companion has.
   */
  private final Map<Path, byte[]> sharedSlots = new LinkedHashMap<>();

  /** The files of a companion in process {@code pid}, named after that process alone. */
  public DiscoveryFiles(DiscoveryLocations locations, Set<DiscoveryTarget> targets, long pid) {
    this(locations, targets, pid, List.of());
  }

  /**
   * The files of a companion in process {@code pid}, also named after each of {@code ancestors}.
   *
   * <p>Qwen Code before 0.15 and Gemini CLI before 0.40 read only files named after the process
   * they take for the IDE: the parent of the parent of the shell they run in. A companion cannot
   * know that shell, but a terminal opened in the IDE or beside a companion started from a terminal
   * shares the companion's ancestors, so naming a file after each of them reaches those CLIs
   * wherever they were started from there.
   */
  public DiscoveryFiles(
      DiscoveryLocations locations, Set<DiscoveryTarget> targets, long pid, List<Long> ancestors) {
    this.locations = locations;
    this.targets =
        targets.isEmpty() ? EnumSet.noneOf(DiscoveryTarget.class) : EnumSet.copyOf(targets);
    this.pid = pid;
    this.ancestors = List.copyOf(ancestors);
  }

  /**
   * The processes above {@code pid}, nearest first, up to and without the init process (pid 1),
   * which a CLI never takes for an IDE.
   */
  public static List<Long> ancestorsOf(long pid) {
    List<Long> found = new ArrayList<>();
    Optional<ProcessHandle> next = ProcessHandle.of(pid).flatMap(ProcessHandle::parent);
    while (next.isPresent() && next.get().pid() > 1 && found.size() < MAX_ANCESTORS) {
      found.add(next.get().pid());
      next = next.get().parent();
    }
    return List.copyOf(found);
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

    WritePass pass = new WritePass();
    try {
      for (DiscoveryFileKind kind : DiscoveryFileKind.values()) {
        if (!targets.contains(kind.target())) {
          continue;
        }
        for (long named : kind.namedAfterAncestors() ? pidAndAncestors() : List.of(pid)) {
          Path file = kind.path(locations, named, port);
          boolean claimed = kind == DiscoveryFileKind.QWEN_LEGACY && !written.contains(file);
          if (claimed && !CLAIMED_LEGACY_FILES.add(file)) {
            continue;
          }
          boolean done = false;
          try {
            done = pass.write(file, kind.sharedUpTo(locations), bytes);
          } finally {
            if (!done) {
              release(claimed, file);
            }
          }
          if (done) {
            written.add(file);
            if (kind == DiscoveryFileKind.QWEN_LEGACY && named != pid) {
              sharedSlots.put(file, bytes);
            }
          }
        }
      }
    } finally {
      pass.logRefusals();
    }
    return pass.written();
  }

  private List<Long> pidAndAncestors() {
    List<Long> pids = new ArrayList<>(1 + ancestors.size());
    pids.add(pid);
    ancestors.stream().filter(p -> p != pid).forEach(pids::add);
    return pids;
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
      writeIdeInfo(json, ideInfo);
      json.writeEndObject();
    }
    return out.toByteArray();
  }

  /** The {@code ideInfo} by which the CLIs detect an IDE other than VS Code. */
  static void writeIdeInfo(JsonGenerator json, IdeInfo ideInfo) {
    json.writeName("ideInfo");
    json.writeStartObject();
    json.writeStringProperty("name", ideInfo.name());
    json.writeStringProperty("displayName", ideInfo.displayName());
    json.writeEndObject();
  }

  /** The files written and not yet removed. */
  public synchronized List<Path> files() {
    return List.copyOf(written);
  }

  /**
   * Removes every file this companion wrote and still holds; safe to call twice. A file named after
   * a shared ancestor may since have been taken over by another companion beside this one, and is
   * then left to it.
   */
  public synchronized void removeAll() {
    for (Path file : written) {
      try {
        byte[] bytes = sharedSlots.get(file);
        if (bytes == null || stillHolds(file, bytes)) {
          Files.deleteIfExists(file);
        }
      } catch (IOException e) {
        log.warn("Could not remove discovery file {}: {}", file, e.getMessage());
      }
      CLAIMED_LEGACY_FILES.remove(file);
    }
    written.clear();
    sharedSlots.clear();
  }

  private static boolean stillHolds(Path file, byte[] bytes) throws IOException {
    if (!FileTrust.checkOwnRegularFile(file, DiscoveryScanner.MAX_FILE_BYTES)) {
      return false;
    }
    return Arrays.equals(DiscoveryScanner.readWithin(file, REMOVE_READ_DEADLINE), bytes);
  }

  /**
   * Writes through a fresh owner-only temporary file in a checked directory, renamed over the file:
   * rename replaces whatever is at the name and never follows a link there.
   */
  static void writeAtomically(Path file, Path sharedUpTo, byte[] bytes) throws IOException {
    Path dir = file.getParent();
    FileTrust.secureDirectory(dir, sharedUpTo, true);
    FileTrust.checkOwnRegularFile(file, Long.MAX_VALUE);
    // Created exclusively (O_EXCL under a random name), so never a planted link or FIFO.
    Path temp = Files.createTempFile(dir, ".companion4j-", ".tmp", OWNER_FILE);
    try {
      Files.write(
          temp,
          bytes,
          StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING,
          LinkOption.NOFOLLOW_LINKS);
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
