package dev.companion4j.engine.discovery;

import dev.companion4j.engine.internal.io.BoundedReads;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds companions' discovery files and tells the live from the stale. It trusts nothing it finds:
 * only directories that pass the checks writing applies are listed, and only this user's regular
 * files in them are read, never through a link and at most {@value #MAX_FILE_BYTES} bytes each.
 * Every read runs on a helper thread under a deadline, so even a file swapped for a FIFO between
 * the check and the open costs a helper thread, never the caller.
 */
public final class DiscoveryScanner {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryScanner.class);

  /** A companion answers its proof at once; a server that does not within this is no companion. */
  private static final Duration PROOF_TIMEOUT = Duration.ofSeconds(2);

  /** A discovery file holds a few hundred bytes. */
  static final int MAX_FILE_BYTES = 64 * 1024;

  private static final Duration READ_DEADLINE = Duration.ofSeconds(2);

  /** A thread per read in flight: one stuck in a FIFO's open() must not hold up the next read. */
  private static final BoundedReads READERS =
      new BoundedReads("companion4j-discovery-read", Integer.MAX_VALUE);

  private final DiscoveryLocations locations;

  public DiscoveryScanner(DiscoveryLocations locations) {
    this.locations = locations;
  }

  /**
   * The companions serving {@code dir} (its workspace holds {@code dir} as the CLIs match it, each
   * root and {@code dir} resolved to their real paths), the most recently written file first and
   * each companion once. Each one proved it holds its file's token ({@link CompanionProof}): a
   * process that merely reuses a dead companion's pid, with whatever now holds its port, is left
   * out, and its token never leaves this process. A companion that wrote its file a moment before
   * it serves is left out too until it answers.
   */
  public List<CompanionAddress> serving(Path dir) {
    return proven(servingCandidates(dir)).toList();
  }

  /**
   * The first of {@link #serving}, proving the candidates one at a time and only until one passes:
   * a client that uses one companion pays one proof when the newest file is live.
   */
  public Optional<CompanionAddress> newestServing(Path dir) {
    return proven(servingCandidates(dir)).findFirst();
  }

  /**
   * The companions of running processes whose token this user can read and that prove they hold it,
   * the most recently written file first and each companion once.
   */
  public List<CompanionAddress> reachable() {
    return proven(candidates()).toList();
  }

  private Stream<CompanionAddress> servingCandidates(Path dir) {
    Path real = realPath(dir);
    return candidates().filter(a -> holds(a.workspacePath(), real));
  }

  /**
   * Every file of a running process with a token, newest first; one per port and token (a companion
   * writes a file per CLI generation, all with its token), not yet proven.
   */
  private Stream<CompanionAddress> candidates() {
    Set<String> seen = new HashSet<>();
    return scanWithTokens().stream()
        .filter(f -> f.companion().alive() && !f.token().isEmpty())
        .sorted(Comparator.comparing((Found f) -> modified(f.companion().file())).reversed())
        .filter(f -> seen.add(f.companion().port() + " " + f.token()))
        .map(
            f ->
                new CompanionAddress(
                    f.companion().port(),
                    f.token(),
                    f.companion().workspacePath(),
                    f.companion().ideName().orElse(""),
                    f.companion().file(),
                    f.companion().pid()));
  }

  /**
   * The candidates that prove they hold their token, lazily, each port once: a stale file of a
   * reused pid does not hide the live companion on the same port.
   */
  private static Stream<CompanionAddress> proven(Stream<CompanionAddress> candidates) {
    Set<Integer> ports = new HashSet<>();
    return candidates
        .filter(a -> !ports.contains(a.port()) && proves(a.port(), a.authToken()))
        .filter(a -> ports.add(a.port()));
  }

  private static boolean proves(int port, String token) {
    return CompanionProof.holdsToken(port, token, PROOF_TIMEOUT);
  }

  private static boolean holds(String workspacePath, Path dir) {
    for (String root : workspacePath.split(Pattern.quote(File.pathSeparator))) {
      if (!root.isBlank() && dir.startsWith(realPath(Path.of(root)))) {
        return true;
      }
    }
    return false;
  }

  private static Path realPath(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException | RuntimeException e) {
      return p.toAbsolutePath().normalize();
    }
  }

  private static FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /** A file's companion and the token it holds, which {@link DiscoveredCompanion} does not keep. */
  private record Found(DiscoveredCompanion companion, String token) {}

  /**
   * Every readable discovery file of this user's in every location, of any companion; {@code alive}
   * when its process runs and the server on its port proves it holds the file's token.
   */
  public List<DiscoveredCompanion> scan() {
    Map<String, Boolean> proofs = new HashMap<>();
    List<DiscoveredCompanion> found = new ArrayList<>();
    for (Found f : scanWithTokens()) {
      DiscoveredCompanion c = f.companion();
      boolean alive =
          c.alive()
              && !f.token().isEmpty()
              && proofs.computeIfAbsent(
                  c.port() + " " + f.token(), k -> proves(c.port(), f.token()));
      found.add(
          new DiscoveredCompanion(
              c.file(), c.kind(), c.port(), c.workspacePath(), c.ideName(), c.pid(), alive));
    }
    return found;
  }

  /** The files with their tokens; {@code alive} here only says whether the owning process runs. */
  private List<Found> scanWithTokens() {
    List<Found> found = new ArrayList<>();
    for (DiscoveryFileKind kind : DiscoveryFileKind.values()) {
      Path dir = kind.dir(locations);
      try {
        if (!FileTrust.secureDirectory(dir, kind.sharedUpTo(locations), false)) {
          continue;
        }
      } catch (IOException e) {
        log.debug("Not scanning {}: {}", dir, e.getMessage());
        continue;
      }
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path file : files) {
          Matcher m = kind.match(file.getFileName().toString());
          if (m.matches()) {
            read(file, kind, m).ifPresent(found::add);
          }
        }
      } catch (IOException e) {
        log.debug("Cannot list {}: {}", dir, e.getMessage());
      }
    }
    return found;
  }

  /**
   * Deletes the files of companions whose process is gone (left by a crash), keeping every file of
   * a running process and every file another user owns.
   *
   * @return the files removed
   */
  public List<Path> removeStale() {
    List<Path> removed = new ArrayList<>();
    for (Found f : scanWithTokens()) {
      DiscoveredCompanion c = f.companion();
      if (c.pid().isEmpty() || c.alive()) {
        continue;
      }
      try {
        if (Files.deleteIfExists(c.file())) {
          removed.add(c.file());
          log.info("Removed stale discovery file {} of dead process {}", c.file(), c.pid().get());
        }
      } catch (IOException e) {
        log.warn("Could not remove stale discovery file {}: {}", c.file(), e.getMessage());
      }
    }
    return removed;
  }

  /**
   * {@link #removeStale} on a daemon thread of its own, for a caller that must not wait for the
   * file system (a companion right after its start). A failure or a missed deadline is logged.
   *
   * @return the files removed; completes exceptionally with a {@link TimeoutException} when the
   *     cleanup has not finished within {@code deadline}
   */
  public CompletableFuture<List<Path>> removeStaleInBackground(Duration deadline) {
    CompletableFuture<List<Path>> removed = new CompletableFuture<>();
    Thread cleanup =
        new Thread(
            () -> {
              try {
                removed.complete(removeStale());
              } catch (RuntimeException e) {
                removed.completeExceptionally(e);
              }
            },
            "companion4j-discovery-cleanup");
    cleanup.setDaemon(true);
    cleanup.start();
    return removed
        .orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (files, failure) -> {
              if (failure instanceof TimeoutException) {
                log.warn("Stale discovery files not cleaned up within {}", deadline);
              } else if (failure != null) {
                log.warn("Stale discovery files not cleaned up: {}", failure.toString());
              }
            });
  }

  private Optional<Found> read(Path file, DiscoveryFileKind kind, Matcher name) {
    try {
      DiscoveryJson.Fields json = DiscoveryJson.discoveryFile(readBounded(file));
      int port = json.port();
      if (port <= 0 || port > 65_535) {
        return Optional.empty();
      }
      // A companion names files after its ancestors too, and records its own process as ppid.
      OptionalLong pid = json.ppid().isPresent() ? json.ppid() : kind.pidFromName(name);
      Optional<Long> owner = pid.isPresent() ? Optional.of(pid.getAsLong()) : Optional.empty();
      boolean alive = owner.map(DiscoveryScanner::processAlive).orElse(true);
      return Optional.of(
          new Found(
              new DiscoveredCompanion(
                  file, kind, port, json.workspacePath(), json.ideName(), owner, alive),
              json.authToken()));
    } catch (IOException | RuntimeException e) {
      log.debug("Skipping discovery file {}: {}", file, e.getMessage());
      return Optional.empty();
    }
  }

  /** The file's bytes, if it is this user's regular file of at most {@link #MAX_FILE_BYTES}. */
  private static byte[] readBounded(Path file) throws IOException {
    if (!FileTrust.checkOwnRegularFile(file, MAX_FILE_BYTES)) {
      throw new NoSuchFileException(file.toString());
    }
    return readWithin(file, READ_DEADLINE);
  }

  /**
   * Reads at most {@link #MAX_FILE_BYTES} of {@code file} on a helper thread, giving up after
   * {@code deadline}: the file may have become a FIFO since it was checked, and opening one blocks.
   */
  static byte[] readWithin(Path file, Duration deadline) throws IOException {
    return READERS.read(file, MAX_FILE_BYTES, deadline);
  }

  static boolean processAlive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
