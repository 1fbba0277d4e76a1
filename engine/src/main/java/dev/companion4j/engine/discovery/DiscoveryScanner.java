package dev.companion4j.engine.discovery;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Finds companions' discovery files and tells the live from the stale. */
public final class DiscoveryScanner {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryScanner.class);
  private static final JsonMapper JSON = JsonMapper.shared();
  private static final int CONNECT_TIMEOUT_MILLIS = 300;

  private final DiscoveryLocations locations;

  public DiscoveryScanner(DiscoveryLocations locations) {
    this.locations = locations;
  }

  /** Every readable discovery file in every location, of any companion. */
  public List<DiscoveredCompanion> scan() {
    return scan(true);
  }

  /** With {@code probePorts} false, {@code alive} only says whether the owning process runs. */
  private List<DiscoveredCompanion> scan(boolean probePorts) {
    List<DiscoveredCompanion> found = new ArrayList<>();
    for (DiscoveryFileKind kind : DiscoveryFileKind.values()) {
      Path dir = kind.dir(locations);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path file : files) {
          Matcher m = kind.match(file.getFileName().toString());
          if (m.matches()) {
            read(file, kind, m, probePorts).ifPresent(found::add);
          }
        }
      } catch (IOException e) {
        log.debug("Cannot list {}: {}", dir, e.getMessage());
      }
    }
    return found;
  }

  /**
   * Deletes the files of companions whose process is gone (left by a crash), keeping every file
   * of a running process and every file another user owns.
   *
   * @return the files removed
   */
  public List<Path> removeStale() {
    List<Path> removed = new ArrayList<>();
    for (DiscoveredCompanion c : scan(false)) {
      if (c.pid().isEmpty() || c.alive() || !ownedByMe(c.file())) {
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

  private Optional<DiscoveredCompanion> read(
      Path file, DiscoveryFileKind kind, Matcher name, boolean probePort) {
    try {
      JsonNode json = JSON.readTree(Files.readAllBytes(file));
      int port = json.path("port").asInt(-1);
      if (port <= 0 || port > 65_535) {
        return Optional.empty();
      }
      OptionalLong pid = kind.pidFromName(name);
      if (pid.isEmpty() && json.path("ppid").isNumber()) {
        pid = OptionalLong.of(json.path("ppid").asLong());
      }
      Optional<Long> owner = pid.isPresent() ? Optional.of(pid.getAsLong()) : Optional.empty();
      JsonNode ideName = json.path("ideInfo").path("displayName");
      boolean alive =
          owner.map(DiscoveryScanner::processAlive).orElse(true) && (!probePort || accepts(port));
      return Optional.of(
          new DiscoveredCompanion(
              file,
              kind,
              port,
              json.path("workspacePath").asString(""),
              ideName.isString() ? Optional.of(ideName.asString()) : Optional.empty(),
              owner,
              alive));
    } catch (IOException | RuntimeException e) {
      log.debug("Skipping unreadable discovery file {}: {}", file, e.getMessage());
      return Optional.empty();
    }
  }

  static boolean processAlive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MILLIS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean ownedByMe(Path file) {
    try {
      UserPrincipal me =
          file.getFileSystem()
              .getUserPrincipalLookupService()
              .lookupPrincipalByName(System.getProperty("user.name"));
      return Files.getOwner(file).equals(me);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }
}
