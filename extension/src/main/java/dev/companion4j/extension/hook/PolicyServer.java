package dev.companion4j.extension.hook;

import dev.companion4j.extension.io.Directories;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shell policy's resident answerer ({@code companion4j hook policy-server}): a Java started for
 * every shell call costs more than the whole check does in Node, so session start, and a call that
 * found no answerer, have the launcher start this process, and calls reach it through named pipes,
 * which plain {@code sh} speaks with {@code cat}, {@code mkfifo} and {@code timeout}, without a
 * JVM. It decides exactly as the hook does ({@link HookMain#answer}); anything it does not answer
 * in time the launcher hands to a Java of its own, so the guard fails closed as before.
 *
 * <p>It lives in the extension's {@value #DIRECTORY}/, this user's alone (0700): whoever could
 * write there could replace the extension's jar, so its answers are trusted as the jar is. There:
 *
 * <ul>
 *   <li>{@value #REQUESTS}, a FIFO this server reads: a caller announces one request per line,
 *       {@code <pid> <runtime>}, its own pid and {@code qwen} or {@code gemini};
 *   <li>{@value #PID}, this server's pid, by which callers tell a FIFO nobody reads;
 *   <li>{@code <pid>.in}, the hook's input, a regular file the caller wrote in full before
 *       announcing it;
 *   <li>{@code <pid>.out}, a FIFO the caller reads the answer from: the exit code on the first
 *       line, then the text for its stdout (exit 0) or its stderr (exit 2).
 * </ul>
 *
 * <p>One server per extension copy (a lock file); it ends when it has had nothing to do for {@link
 * #IDLE}, or once it is no longer the extension's: its FIFO removed or replaced, the jar changed
 * (an update brings new rules code), or its directory opened to others.
 *
 * <p>Threads: the thread that calls {@link #run()} reads announcements; each request is answered on
 * a pool thread ({@value #THREADS}, with {@value #MAX_WAITING} waiting at most; more are left to
 * the launcher's own Java); a scheduler thread checks once a second whether the server is still
 * wanted and unblocks replies whose caller has gone.
 */
final class PolicyServer implements AutoCloseable {
  static final String DIRECTORY = "run";
  static final String REQUESTS = "policy";
  static final String PID = "pid";
  private static final FileAttribute<?> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  /** How long it stays without a request: about a working session's pause. */
  static final Duration IDLE = Duration.ofMinutes(30);

  /**
   * Threads that answer: a request takes about a millisecond, a reply whose caller has gone holds
   * its thread up to {@link #REPLY_WAIT_MILLIS}.
   */
  private static final int THREADS = 4;

  /** Requests that wait for a thread; more are left to the launcher's own Java. */
  private static final int MAX_WAITING = 64;

  private static final int MAX_LINE = 64;

  /**
   * The largest input it answers, far above any real command: with a small heap of its own, it
   * leaves larger ones (an empty answer) to the launcher's Java, which takes up to {@link
   * HookMain#MAX_INPUT}.
   */
  static final int MAX_ANSWERED = 256 << 10;

  private static final Pattern REQUEST = Pattern.compile("([1-9][0-9]{0,9}) (qwen|gemini)");
  private static final Pattern CALLER_FILE = Pattern.compile("[1-9][0-9]{0,9}\\.(in|out)");

  /**
   * How long an answer waits for its caller to read it: the launcher waits 2 s for the answer, then
   * hands the call to a Java of its own and no longer reads.
   */
  private static final long REPLY_WAIT_MILLIS = 3_000;

  private static final long CHECK_MILLIS = 1_000;

  /** The size from which the log starts afresh. */
  private static final long LOG_LIMIT = 1 << 20;

  private final Path run;
  private final Path requests;
  private final Path jar;
  private final Map<String, String> env;
  private final Duration idle;
  private final Clock clock;
  private final FileLock lock;
  private final Object fifoKey;
  private final BasicFileAttributes jarWhenStarted;
  private final RandomAccessFile fifo;
  private final ThreadPoolExecutor answering;
  private final ScheduledExecutorService checks;
  private final AtomicLong lastRequest;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean closed;

  private PolicyServer(
      Path extension,
      Map<String, String> env,
      Duration idle,
      Clock clock,
      FileLock lock,
      RandomAccessFile fifo,
      Object fifoKey,
      BasicFileAttributes jarWhenStarted) {
    this.run = extension.resolve(DIRECTORY);
    this.requests = run.resolve(REQUESTS);
    this.jar = extension.resolve("lib/companion4j.jar");
    this.env = env;
    this.idle = idle;
    this.clock = clock;
    this.lock = lock;
    this.fifo = fifo;
    this.fifoKey = fifoKey;
    this.jarWhenStarted = jarWhenStarted;
    this.lastRequest = new AtomicLong(clock.millis());
    this.answering =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(MAX_WAITING),
            r -> daemon(r, "companion4j-policy-answer"));
    answering.allowCoreThreadTimeOut(true);
    this.checks =
        Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "companion4j-policy-checks"));
    checks.scheduleWithFixedDelay(
        this::closeWhenUnwanted, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Opens the answerer of the extension in {@code extension}: its directory made or checked (this
   * user's, 0700), its lock taken, a fresh FIFO in place.
   *
   * @return empty when another server holds the lock
   * @throws IOException when the directory is another user's or a link, or the jar is missing
   */
  static Optional<PolicyServer> open(
      Path extension, Map<String, String> env, Duration idle, Clock clock) throws IOException {
    Path run = Directories.createOwnerOnly(extension.resolve(DIRECTORY));
    BasicFileAttributes jar =
        Files.readAttributes(
            extension.resolve("lib/companion4j.jar"),
            BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
    FileChannel lockFile =
        FileChannel.open(
            run.resolve("lock"),
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
            OWNER_ONLY);
    FileLock lock;
    try {
      lock = lockFile.tryLock();
    } catch (OverlappingFileLockException inThisJvm) {
      lock = null;
    }
    if (lock == null) {
      lockFile.close();
      return Optional.empty();
    }
    try {
      Path requests = run.resolve(REQUESTS);
      // What a server that died left behind: it holds no lock, so nobody reads it.
      Files.deleteIfExists(requests);
      removeLeftovers(run);
      makeFifo(requests);
      Object key =
          Files.readAttributes(requests, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .fileKey();
      // Read and write: the read end never sees an end of file between callers, and close() can
      // wake the reader by writing to it. Open before the pid tells callers it is there: what is
      // written to a FIFO nobody holds open is lost.
      RandomAccessFile fifo = new RandomAccessFile(requests.toFile(), "rw");
      // Beside it, its pid: a FIFO a server left when it was killed, or a reboot ended it, is
      // one nobody reads, and callers would wait for it.
      try {
        Path pid = run.resolve(PID + ".new");
        Files.deleteIfExists(pid);
        Files.writeString(
            Files.createFile(pid, OWNER_ONLY),
            ProcessHandle.current().pid() + "\n",
            StandardCharsets.US_ASCII);
        Files.move(pid, run.resolve(PID), StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException | RuntimeException e) {
        fifo.close();
        throw e;
      }
      return Optional.of(new PolicyServer(extension, env, idle, clock, lock, fifo, key, jar));
    } catch (IOException | RuntimeException e) {
      lockFile.close();
      throw e;
    }
  }

  /** The files of callers that are gone, which no one would remove. */
  private static void removeLeftovers(Path run) throws IOException {
    try (Stream<Path> files = Files.list(run)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        if (CALLER_FILE.matcher(name).matches()
            && ProcessHandle.of(Long.parseLong(name.substring(0, name.indexOf('.')))).isEmpty()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  private static void makeFifo(Path path) throws IOException {
    // The JDK cannot make a FIFO; mkfifo is POSIX.
    Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", path.toString()).start();
    try {
      if (!mkfifo.waitFor(10, TimeUnit.SECONDS)) {
        mkfifo.destroyForcibly();
        throw new IOException("mkfifo did not finish in 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making " + path, e);
    }
    if (mkfifo.exitValue() != 0) {
      throw new IOException(
          "mkfifo failed: "
              + new String(mkfifo.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    }
  }

  /** Reads announcements and has them answered until {@link #close()}; on the calling thread. */
  void run() throws IOException {
    try (RandomAccessFile owned = fifo) {
      read(new BufferedInputStream(new FileInputStream(owned.getFD())));
    }
  }

  private void read(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    boolean overlong = false;
    while (!closed) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      if (b != '\n') {
        if (line.length() < MAX_LINE) {
          line.append((char) b);
        } else {
          overlong = true;
        }
        continue;
      }
      String request = line.toString();
      line.setLength(0);
      if (overlong || closed) {
        overlong = false;
        continue;
      }
      lastRequest.set(clock.millis());
      var parts = REQUEST.matcher(request);
      if (!parts.matches()) {
        continue;
      }
      inFlight.incrementAndGet();
      try {
        answering.execute(
            () -> {
              try {
                answer(parts.group(1), parts.group(2));
              } finally {
                inFlight.decrementAndGet();
                lastRequest.set(clock.millis());
              }
            });
      } catch (RejectedExecutionException busy) {
        // Left to the launcher's own Java, which it starts when no answer comes.
        inFlight.decrementAndGet();
      }
    }
  }

  /** Answers the caller with pid {@code pid}; on a pool thread. */
  private void answer(String pid, String runtime) {
    Path input = run.resolve(pid + ".in");
    Path output = run.resolve(pid + ".out");
    try {
      if (!isA(input, true) || !isA(output, false)) {
        return;
      }
      byte[] bytes;
      try (InputStream in = new FileInputStream(input.toFile())) {
        bytes = in.readNBytes(MAX_ANSWERED + 1);
      }
      Files.deleteIfExists(input);
      byte[] reply = bytes.length > MAX_ANSWERED ? new byte[0] : reply(pid, runtime, bytes);
      // Opening a FIFO to write waits for its reader: a caller that has gone is let go of below.
      AtomicBoolean opened = new AtomicBoolean();
      var release =
          checks.schedule(
              () -> {
                if (!opened.get() && isA(output, false)) {
                  // Read and write never waits; as a reader it lets the open below return, and
                  // what is written then goes nowhere.
                  try (RandomAccessFile unblock = new RandomAccessFile(output.toFile(), "rw")) {
                    opened.set(true);
                  } catch (IOException gone) {
                    // The caller removed it: nothing waits.
                  }
                }
              },
              REPLY_WAIT_MILLIS,
              TimeUnit.MILLISECONDS);
      try (OutputStream to = new FileOutputStream(output.toFile())) {
        opened.set(true);
        Files.deleteIfExists(output);
        // Nothing written, the caller reads an end at once and asks its own Java.
        to.write(reply);
      } finally {
        release.cancel(false);
      }
    } catch (IOException | RuntimeException e) {
      // The caller hears nothing and hands its call to a Java of its own.
      System.err.println("policy server: request " + pid + " not answered: " + e);
    }
  }

  /**
   * The exit code on a line, then the text for stdout or stderr: what the hook in a Java of its own
   * would answer.
   */
  private byte[] reply(String pid, String runtime, byte[] input) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        HookMain.answer(
            new HookMain(HookDialect.of(runtime), env, ProcessHandle.of(Long.parseLong(pid))),
            "shell-policy",
            new ByteArrayInputStream(input),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            HookMain.GUARD_LIMIT_MILLIS);
    return (code + "\n" + (code == 0 ? out : err).toString(StandardCharsets.UTF_8))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@code path} is, without following links, a regular file or else a FIFO. */
  private static boolean isA(Path path, boolean regular) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return regular ? a.isRegularFile() : a.isOther();
    } catch (IOException e) {
      return false;
    }
  }

  /** On the scheduler thread. */
  private void closeWhenUnwanted() {
    if (closed) {
      return;
    }
    boolean idleTooLong =
        inFlight.get() == 0 && clock.millis() - lastRequest.get() >= idle.toMillis();
    if (idleTooLong || !stillOurs()) {
      close();
    }
  }

  /** Whether the FIFO in place is this server's and the jar the one it started from. */
  private boolean stillOurs() {
    try {
      BasicFileAttributes now =
          Files.readAttributes(jar, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return ownsFifo()
          && Directories.isPrivate(run)
          && Objects.equals(now.fileKey(), jarWhenStarted.fileKey())
          && now.size() == jarWhenStarted.size()
          && now.lastModifiedTime().equals(jarWhenStarted.lastModifiedTime());
    } catch (IOException gone) {
      return false;
    }
  }

  /**
   * The log for what went wrong, since nobody sees the server's stderr: {@code log} in its
   * directory, this user's alone, appended to and started afresh from {@link #LOG_LIMIT}.
   */
  PrintStream openLog() throws IOException {
    Path log = run.resolve("log");
    if (isA(log, true) && Files.size(log) >= LOG_LIMIT) {
      Files.delete(log);
    }
    return new PrintStream(
        Channels.newOutputStream(
            Files.newByteChannel(
                log,
                Set.of(
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    LinkOption.NOFOLLOW_LINKS),
                OWNER_ONLY)),
        true,
        StandardCharsets.UTF_8);
  }

  /** Whether {@link #close()} ran. */
  boolean isClosed() {
    return closed;
  }

  /**
   * Removes the FIFO (while still holding the lock, so no other server's), lets the reader go and
   * releases the lock. Callers already waiting hear nothing and go to their own Java.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (ownsFifo()) {
        Files.deleteIfExists(run.resolve(PID));
        Files.delete(requests);
      }
    } catch (IOException e) {
      // Gone already, or another's now.
    }
    try {
      // Wakes run(), which sees closed.
      fifo.write('\n');
    } catch (IOException e) {
      // run() ends at its next read anyway.
    }
    answering.shutdown();
    checks.shutdown();
    try {
      lock.channel().close();
    } catch (IOException e) {
      System.err.println("policy server: lock not released: " + e);
    }
  }

  /** Whether the FIFO in place is the one this server made. */
  private boolean ownsFifo() throws IOException {
    return Objects.equals(
        fifoKey,
        Files.readAttributes(requests, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
            .fileKey());
  }
}
