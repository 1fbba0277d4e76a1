package dev.companion4j.acp.internal;

import com.agentclientprotocol.sdk.client.AcpAsyncClient;
import com.agentclientprotocol.sdk.client.AcpClient;
import com.agentclientprotocol.sdk.json.TypeRef;
import com.agentclientprotocol.sdk.spec.AcpClientTransport;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import com.agentclientprotocol.sdk.spec.AcpSchema.JSONRPCMessage;
import dev.companion4j.wire.LineSplitter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * JSON-RPC lines to and from an agent process, on the SDK's transport interface. The SDK's own
 * stdio transport is not used: it has no working directory, stops reading for good at the first
 * line that is not JSON, does not notice the agent's death (calls then wait for their timeout) and
 * stops only the agent's wrapper process.
 *
 * <p>Here a line that is not JSON-RPC, or one over {@link #MAX_LINE_BYTES}, is logged and skipped;
 * the agent's exit fails every pending call at once (see {@link #client}); stopping closes the
 * agent's input, which both CLIs take as the end, and kills what is left of its process tree and
 * group after a bounded wait. The agent runs in a process group of its own (where {@code setsid}
 * exists), out of reach of a terminal's Ctrl-C.
 *
 * <p>Threads: {@code companion4j-acp-in} reads the agent's output and dispatches every message in
 * order; {@code companion4j-acp-err} keeps the tail of its error output for error reports.
 */
public final class StdioTransport implements AcpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);

  /** Far above any real message (a whole file's text in one read), below a heap's worth. */
  public static final int MAX_LINE_BYTES = 32 * 1024 * 1024;

  /** How long a stopping agent has to exit on its own before its tree is killed. */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(3);

  private static final Duration KILL_WAIT = Duration.ofSeconds(5);

  /** How long the agent's last output may take to be read once it exited. */
  private static final Duration OUTPUT_DRAIN = Duration.ofSeconds(2);

  /** The SDK times every call out after this; short calls get their own, shorter bounds. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofHours(2);

  private static final int STDERR_LINES = 20;

  /**
   * Starts the agent in a session and process group of its own: a terminal's Ctrl-C (SIGINT to its
   * foreground group) is meant for the chat, not the agent, and stopping kills the group.
   */
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  private final Process process;
  private final boolean ownGroup;
  private final Jackson3Mapper mapper;
  private final Consumer<String> notices;
  private final Object writeLock = new Object();
  private final Deque<String> stderrTail = new ArrayDeque<>();
  private final CompletableFuture<Integer> exited = new CompletableFuture<>();

  private StdioTransport(
      Process process, boolean ownGroup, Jackson3Mapper mapper, Consumer<String> notices) {
    this.process = process;
    this.ownGroup = ownGroup;
    this.mapper = mapper;
    this.notices = notices;
  }

  /**
   * Starts the agent.
   *
   * @param environment added to this process's environment
   * @param notices told of each line the agent wrote that is not a message, on the reader thread
   * @throws IOException when the command cannot be started, e.g. it is not on the PATH
   */
  public static StdioTransport spawn(
      List<String> command, Path cwd, Map<String, String> environment, Consumer<String> notices)
      throws IOException {
    ProcessBuilder builder = new ProcessBuilder().directory(cwd.toFile());
    builder.environment().putAll(environment);
    String program = resolve(command.get(0), builder.environment().get("PATH"));
    List<String> argv = new ArrayList<>();
    boolean ownGroup = Files.isExecutable(SETSID);
    if (ownGroup) {
      argv.add(SETSID.toString());
    }
    argv.add(program);
    argv.addAll(command.subList(1, command.size()));
    return new StdioTransport(
        builder.command(argv).start(), ownGroup, new Jackson3Mapper(), notices);
  }

  /**
   * The program as a path, looked up on the agent's PATH, so that a missing one is an error here
   * and not the exit of the process that was to start it.
   */
  private static String resolve(String program, String path) throws IOException {
    if (program.contains("/") || path == null) {
      return program;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return Path.of(dir, program).toString();
      }
    }
    throw new IOException("no command " + program + " on the PATH");
  }

  /**
   * The client on this transport: the handlers {@code spec} adds answer the agent's requests; when
   * the agent exits, the client closes, which fails its pending calls at once.
   */
  public AcpAsyncClient client(UnaryOperator<AcpClient.AsyncSpec> spec) {
    AcpAsyncClient client =
        spec.apply(AcpClient.async(this).requestTimeout(REQUEST_TIMEOUT)).build();
    exited.whenComplete((code, error) -> client.close());
    return client;
  }

  /** Completes with the agent's exit code once it exited. */
  public CompletableFuture<Integer> exited() {
    return exited;
  }

  /** The last lines the agent wrote to its error output, oldest first, for error reports. */
  public String stderrTail() {
    synchronized (stderrTail) {
      return String.join("\n", stderrTail);
    }
  }

  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    return Mono.fromRunnable(
        () -> {
          Thread reader = daemon("companion4j-acp-in", () -> readMessages(handler));
          reader.start();
          daemon("companion4j-acp-err", this::readErrors).start();
          process
              .onExit()
              .thenAccept(
                  p -> {
                    // What the agent wrote before it exited (its last answers) is read first;
                    // a child that inherited its output may keep it open, hence the bound.
                    try {
                      reader.join(OUTPUT_DRAIN.toMillis());
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    LOG.debug("The agent exited with {}", p.exitValue());
                    exited.complete(p.exitValue());
                  });
        });
  }

  private void readMessages(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    LineSplitter lines =
        new LineSplitter(
            MAX_LINE_BYTES,
            false,
            LineSplitter.Lines.of(
                line -> message(line, handler),
                () ->
                    notice("The agent wrote a line over " + MAX_LINE_BYTES + " bytes; skipped.")));
    read(process.getInputStream(), lines);
  }

  private void message(String line, Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    if (line.isBlank()) {
      return;
    }
    JSONRPCMessage message;
    try {
      message = AcpSchema.deserializeJsonRpcMessage(mapper, line);
    } catch (IOException | RuntimeException e) {
      notice("The agent wrote a line that is not a JSON-RPC message; skipped: " + shortened(line));
      return;
    }
    handler
        .apply(Mono.just(message))
        .subscribe(
            reply -> {},
            error -> LOG.warn("Handling a message of the agent failed: {}", error.toString()));
  }

  private void notice(String text) {
    LOG.warn(text);
    notices.accept(text);
  }

  private void readErrors() {
    LineSplitter lines =
        new LineSplitter(
            64 * 1024,
            false,
            LineSplitter.Lines.of(
                line -> {
                  LOG.debug("agent: {}", line);
                  synchronized (stderrTail) {
                    stderrTail.addLast(line);
                    if (stderrTail.size() > STDERR_LINES) {
                      stderrTail.removeFirst();
                    }
                  }
                },
                () -> {}));
    read(process.getErrorStream(), lines);
  }

  private static void read(InputStream in, LineSplitter lines) {
    byte[] buffer = new byte[64 * 1024];
    try (in) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        lines.feed(buffer, 0, n);
      }
      lines.finish();
    } catch (IOException e) {
      LOG.debug("Reading the agent ended: {}", e.toString());
    }
  }

  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    return Mono.fromRunnable(
        () -> {
          byte[] line =
              (mapper.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
          synchronized (writeLock) {
            try {
              OutputStream in = process.getOutputStream();
              in.write(line);
              in.flush();
            } catch (IOException e) {
              throw new UncheckedIOException("The agent no longer reads its input", e);
            }
          }
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
    return mapper.convertValue(data, type);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::stop);
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Closes the agent's input and waits a moment for it to exit; then kills its whole tree, as seen
   * before the wait too: Gemini CLI's wrapper ignores signals and a child left alone would outlive
   * it.
   */
  private void stop() {
    List<ProcessHandle> tree = process.descendants().toList();
    synchronized (writeLock) {
      try {
        process.getOutputStream().close();
      } catch (IOException e) {
        LOG.debug("Closing the agent's input failed: {}", e.toString());
      }
    }
    try {
      if (!process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.debug("The agent did not exit on the end of its input; killing it");
      }
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      tree.forEach(ProcessHandle::destroyForcibly);
      if (ownGroup) {
        // What left the tree (reparented when its parent died) is still in the group.
        new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start()
            .waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      process.destroyForcibly().waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (IOException e) {
      LOG.debug("Killing the agent's process group failed: {}", e.toString());
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String shortened(String line) {
    return line.length() <= 200 ? line : line.substring(0, 200) + "...";
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }
}
