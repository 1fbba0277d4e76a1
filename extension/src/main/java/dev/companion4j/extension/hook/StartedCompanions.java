package dev.companion4j.extension.hook;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.io.Directories;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The headless companions the SessionStart hook started, one record per CLI session in an
 * owner-only directory, so that the SessionEnd hook stops exactly those (when they do not linger)
 * and never a process that merely reused the pid. A record is trusted only where no one else could
 * have written it: the state directories are tightened (or refused) before use, and a record in a
 * place others may write, or one that is a link, is ignored.
 */
final class StartedCompanions {
  private static final Duration START_BOUND = Duration.ofSeconds(20);
  private static final Duration STOP_BOUND = Duration.ofSeconds(5);

  private static final Set<String> SHELLS =
      Set.of("sh", "bash", "dash", "zsh", "setsid", "java", "env", "timeout");

  private final Path base;
  private final Path dir;

  private StartedCompanions(Path base) {
    this.base = base;
    this.dir = base.resolve("sessions");
  }

  /**
   * {@code $HOME/.companion4j/sessions}, or under {@code COMPANION4J_STATE} when {@code env} sets
   * it.
   */
  static StartedCompanions forUser(Map<String, String> env) {
    String state = env.get("COMPANION4J_STATE");
    return new StartedCompanions(
        state != null ? Path.of(state) : DiscoveryLocations.home(env).resolve(".companion4j"));
  }

  /**
   * The sessions directory, created or tightened to this user alone with the state directory above
   * it.
   */
  private Path ownDirectory() throws IOException {
    Directories.createOwnerOnly(base);
    return Directories.createOwnerOnly(dir);
  }

  /**
   * Starts {@code launcher serve} in {@code workspace}, detached from the CLI, and waits until it
   * answers there.
   *
   * @return its first status; empty when it did not answer within the bound
   */
  Optional<CompanionStatus> start(
      String sessionId, Path launcher, Path workspace, IdeLink ide, Duration linger)
      throws IOException, InterruptedException {
    ownDirectory();
    // Created here without following a link: a link planted while the directory was open to others
    // is refused.
    Path log = dir.resolve(safe(sessionId) + ".log");
    Files.newByteChannel(
            log,
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
        .close();
    List<String> command = new ArrayList<>();
    if (new File("/usr/bin/setsid").canExecute()) {
      // A session of its own: the CLI's terminal signals and a hook's timeout must not reach it.
      command.add("/usr/bin/setsid");
    }
    command.add(launcher.toString());
    command.add("serve");
    // Not every CLI fires SessionEnd (Qwen Code's headless runs do not): the companion itself
    // watches
    // the CLI, and stays after it for the linger so that a CLI started later in the folder finds
    // it.
    cliProcess(ProcessHandle.current())
        .ifPresent(
            cli -> {
              command.add("--exit-with-pid");
              command.add(Long.toString(cli.pid()));
              command.add("--linger");
              command.add(Long.toString(linger.toSeconds()));
            });
    Process process =
        new ProcessBuilder(command)
            .directory(workspace.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectErrorStream(true)
            .start();
    // setsid and the launcher both exec: the pid is the companion's own.
    ProcessHandle companion = process.toHandle();
    long deadline = System.nanoTime() + START_BOUND.toNanos();
    Optional<CompanionStatus> status = ide.status(workspace);
    while (status.isEmpty()) {
      if (System.nanoTime() > deadline || !companion.isAlive()) {
        return status;
      }
      TimeUnit.MILLISECONDS.sleep(100);
      status = ide.status(workspace);
    }
    Instant started = companion.info().startInstant().orElse(Instant.EPOCH);
    Files.writeString(
        record(sessionId),
        companion.pid() + " " + started.toEpochMilli() + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS);
    return status;
  }

  /**
   * The CLI that runs the hook in process {@code hook} (its Java, or the launcher that asked {@link
   * PolicyServer}): the nearest ancestor that is not a shell, nor the launcher's Java or its
   * timeout.
   */
  static Optional<ProcessHandle> cliProcess(ProcessHandle hook) {
    Optional<ProcessHandle> p = hook.parent();
    while (p.isPresent()) {
      String name =
          p.get().info().command().map(c -> Path.of(c).getFileName().toString()).orElse("");
      if (!SHELLS.contains(name)) {
        return p;
      }
      p = p.get().parent();
    }
    return Optional.empty();
  }

  /** Forgets this session's record: its companion outlives the session and ends by itself. */
  void forget(String sessionId) throws IOException {
    Files.deleteIfExists(record(sessionId));
  }

  /**
   * Stops the companion this session's start hook started, if it did; true when one was stopped. A
   * record another user could have written names no process to stop.
   */
  boolean stop(String sessionId) throws IOException {
    Path record = record(sessionId);
    if (!Files.exists(record, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (!Directories.isPrivate(base)
        || !Directories.isPrivate(dir)
        || !Directories.isPrivate(record)) {
      return false;
    }
    String[] fields = Files.readString(record, StandardCharsets.UTF_8).trim().split(" ");
    Files.delete(record);
    long pid = Long.parseLong(fields[0]);
    long started = Long.parseLong(fields[1]);
    Optional<ProcessHandle> process =
        ProcessHandle.of(pid)
            .filter(p -> p.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
    if (process.isEmpty()) {
      return false;
    }
    ProcessHandle p = process.get();
    p.destroy();
    try {
      p.onExit().get(STOP_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception notInTime) {
      p.destroyForcibly();
    }
    return true;
  }

  /** The mark that an agent's missing hand-off was sent back once in this session. */
  Path handOffMark(String sessionId, String agent) throws IOException {
    return ownDirectory().resolve(safe(sessionId) + "." + agent + ".retried");
  }

  private Path record(String sessionId) {
    return dir.resolve(safe(sessionId) + ".companion");
  }

  /** A session id as a file name: the CLIs send UUIDs, but nothing from stdin names a path. */
  private static String safe(String sessionId) {
    String s = sessionId.replaceAll("[^A-Za-z0-9_.-]", "_");
    return s.isEmpty() || s.startsWith(".") ? "session" + s : s;
  }
}
