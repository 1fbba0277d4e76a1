package dev.companion4j.extension.hook;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.ide.StatusText;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code companion4j hook <runtime> <handler>}: the one hook runner of the extension. It reads the
 * CLI's JSON on stdin, lets the handler decide and writes the answer as that CLI reads it. A hook
 * runs on every matching event, so this entry point loads only what its handler needs: the shell
 * policy touches neither the network nor the discovery files.
 */
public final class HookMain {
  private static final String AUTOSTART = "COMPANION4J_AUTOSTART";
  private static final String LINGER = "COMPANION4J_LINGER_SECONDS";
  private static final String STATUS_HEADER = "IDE status (Companion4J):\n";

  /** The linger when none is set, in seconds. */
  private static final long DEFAULT_LINGER_SECONDS = 30 * 60;

  /**
   * How long the shell policy may take before it refuses, in milliseconds: well within the 10 s the
   * CLIs give the hook (source/hooks.json), so that the refusal, not their timeout, decides. Not a
   * {@link Duration}: on JDK 17 its static initialiser sets up {@code BigInteger}, which costs
   * every shell call milliseconds.
   */
  static final long GUARD_LIMIT_MILLIS = 5_000;

  /**
   * The largest input a hook reads: far above any real tool call, below what would exhaust its
   * heap.
   */
  static final int MAX_INPUT = 64 << 20;

  private final HookDialect dialect;
  private final Map<String, String> env;
  private final Optional<ProcessHandle> caller;

  /** The hook as this process runs it: its CLI is this process's nearest ancestor that is one. */
  HookMain(HookDialect dialect, Map<String, String> env) {
    this(dialect, env, Optional.of(ProcessHandle.current()));
  }

  /**
   * The hook run for {@code caller}, the launcher that asked {@link PolicyServer}; empty when it
   * has gone, which leaves no CLI to tell a headless run by.
   */
  HookMain(HookDialect dialect, Map<String, String> env, Optional<ProcessHandle> caller) {
    this.dialect = dialect;
    this.env = env;
    this.caller = caller;
  }

  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (args.length == 2 && args[0].equals("train")) {
      try {
        train(args[1]);
      } catch (Exception e) {
        System.err.println("companion4j hook train failed: " + e);
        System.exit(1);
      }
      return;
    }
    if (args.length == 1 && args[0].equals("policy-server")) {
      System.exit(servePolicy());
    }
    if (args.length != 2) {
      System.err.println(
          "usage: companion4j hook <qwen|gemini> <session-start|session-end|subagent-start|subagent-stop|shell-policy>");
      System.exit(2);
    }
    HookDialect dialect;
    try {
      dialect = HookDialect.of(args[0]);
    } catch (IllegalArgumentException e) {
      System.err.println("companion4j hook: " + e.getMessage());
      System.exit(2);
      return;
    }
    int code =
        answer(
            new HookMain(dialect, System.getenv()),
            args[1],
            System.in,
            out,
            System.err,
            GUARD_LIMIT_MILLIS);
    if (code != 0) {
      // Only then: on recent JDKs System.exit sets up logging, which costs every shell call 20 ms.
      System.exit(code);
    }
  }

  /**
   * Runs {@code handler} on {@code stdin} and writes its answer; the exit code for the CLI. A guard
   * ({@code shell-policy}) that cannot decide (unreadable input, any failure, or no answer within
   * {@code guardMillis}) refuses with exit 2 and its reason on stderr, the one form both CLIs block
   * on: they read exit 1 and a hook's timeout as "go on". Other hooks fail with exit 1, which must
   * not end the CLI's session.
   */
  static int answer(
      HookMain hooks,
      String handler,
      InputStream stdin,
      PrintStream out,
      PrintStream err,
      long guardMillis) {
    boolean guard = handler.equals("shell-policy");
    Run run = new Run(hooks, handler, stdin);
    run.start();
    try {
      run.join(guard ? guardMillis : 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String failure =
        run.isAlive()
            ? "it did not decide within " + guardMillis + " ms"
            : run.failure != null ? String.valueOf(run.failure) : null;
    if (failure == null) {
      if (!run.answer.isEmpty()) {
        out.println(run.answer);
      }
      return 0;
    }
    if (guard) {
      err.println(
          "The Companion4J shell policy refused this command: it could not check it ("
              + (failure.length() > 300 ? failure.substring(0, 300) + "…" : failure)
              + ").");
      return 2;
    }
    err.println("companion4j hook " + handler + " failed: " + failure);
    return run.failure instanceof IllegalArgumentException ? 2 : 1;
  }

  /** A handler's run on a thread of its own, so that a guard can give up on it at its deadline. */
  private static final class Run extends Thread {
    private final HookMain hooks;
    private final String handler;
    private final InputStream stdin;
    private volatile String answer;
    private volatile Throwable failure;

    Run(HookMain hooks, String handler, InputStream stdin) {
      super("hook");
      this.hooks = hooks;
      this.handler = handler;
      this.stdin = stdin;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        byte[] input = stdin.readNBytes(MAX_INPUT + 1);
        if (input.length > MAX_INPUT) {
          throw new IOException("the hook's input exceeds " + MAX_INPUT + " bytes");
        }
        answer = hooks.run(handler, input);
      } catch (Throwable t) {
        // Errors too (a stack or heap exhausted by hostile input): a guard must still answer.
        failure = t;
      }
    }
  }

  /**
   * Serves the shell policy of the extension the launcher names until it is no longer wanted (see
   * {@link PolicyServer}); the exit code. Its errors go to the log in its directory: the launcher
   * starts it detached, with nothing of the CLI's.
   */
  private static int servePolicy() {
    String extension = System.getenv("COMPANION4J_EXTENSION");
    if (extension == null) {
      System.err.println("companion4j hook policy-server: COMPANION4J_EXTENSION is not set");
      return 2;
    }
    try {
      Optional<PolicyServer> server =
          PolicyServer.open(
              Path.of(extension), System.getenv(), PolicyServer.IDLE, Clock.systemUTC());
      if (server.isEmpty()) {
        return 0;
      }
      System.setErr(server.get().openLog());
      try (PolicyServer serving = server.get()) {
        // Stopped (a logout, a shutdown), it removes its FIFO as when it ends by itself.
        Runtime.getRuntime().addShutdownHook(new Thread(serving::close, "companion4j-policy-exit"));
        serving.run();
      }
      return 0;
    } catch (IOException | RuntimeException e) {
      System.err.println("companion4j hook policy-server: " + e);
      return 1;
    }
  }

  /**
   * What the install runs to train the class caches, one per kind of hook, since a cache loads all
   * it holds at every start: {@code shell-policy} runs the shell policy in both dialects, {@code
   * status} reads the session-start status from a stand-in companion in a scratch directory.
   */
  private static void train(String kind) throws IOException, InterruptedException {
    if (kind.equals("shell-policy")) {
      Map<String, String> env = withExtension(Map.of());
      for (String runtime : new String[] {"qwen", "gemini"}) {
        HookMain hooks = new HookMain(HookDialect.of(runtime), env);
        // Commands that take the policy down each of its paths, so the cache holds what they load.
        for (String command :
            new String[] {
              "git status",
              "rm -rf build",
              "ls > out.txt",
              "git -C . reset --hard",
              "sh -c 'find . -exec rm -r {} +' | tee x",
              "echo $(sudo sed -i s/a/b/ f) ${IFS} $'\\x41' `eval ls`",
              "curl x | bash",
              "chmod -R 1 . && cp /dev/null f; dd of=x; python3"
            }) {
          byte[] input =
              FlatJson.object(
                      Map.of("hook_event_name", "PreToolUse"),
                      "tool_input",
                      Map.of("command", command))
                  .getBytes(StandardCharsets.UTF_8);
          answer(
              hooks,
              "shell-policy",
              new ByteArrayInputStream(input),
              new PrintStream(OutputStream.nullOutputStream()),
              System.err,
              GUARD_LIMIT_MILLIS);
        }
      }
      return;
    }
    try (TrainingCompanion companion = TrainingCompanion.start()) {
      // As the launcher runs the hook: through the same entry, so that the cache holds all the hook
      // loads.
      Map<String, String> env = withExtension(companion.environment());
      for (String runtime : new String[] {"qwen", "gemini"}) {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        answer(
            new HookMain(HookDialect.of(runtime), env),
            "session-start",
            new ByteArrayInputStream(companion.sessionStart()),
            new PrintStream(answer, true, StandardCharsets.UTF_8),
            System.err,
            GUARD_LIMIT_MILLIS);
        if (!answer.toString(StandardCharsets.UTF_8).contains("Workspace roots")) {
          throw new IllegalStateException("training found no companion: " + answer);
        }
      }
    }
  }

  /**
   * {@code env} with the extension the launcher names ({@code COMPANION4J_EXTENSION}), as a trained
   * hook finds it when it runs.
   */
  private static Map<String, String> withExtension(Map<String, String> env) {
    Map<String, String> named = new HashMap<>(env);
    String extension = System.getenv("COMPANION4J_EXTENSION");
    if (extension != null) {
      named.put("COMPANION4J_EXTENSION", extension);
    }
    return named;
  }

  /**
   * Where the CLI of {@code runtime} ({@code qwen} or {@code gemini}) keeps its copy of this
   * extension.
   */
  public static Path installedCopy(String runtime, Map<String, String> env) {
    return HookDialect.of(runtime)
        .linkedSettings(env, DiscoveryLocations.home(env).toString())
        .getParent();
  }

  /**
   * The CLI's stdout for {@code handler} given {@code stdin}; empty when there is nothing to say.
   */
  String run(String handler, byte[] stdin) throws IOException, InterruptedException {
    HookInput in = dialect.read(FlatJson.read(stdin));
    HookAnswer answer =
        switch (handler) {
          case "shell-policy" -> shellPolicy(in);
          case "session-start" -> sessionStart(in);
          case "session-end" -> sessionEnd(in);
          case "subagent-start" -> subagentStart(in);
          case "subagent-stop" -> subagentStop(in);
          default -> throw new IllegalArgumentException("unknown hook handler '" + handler + "'");
        };
    return dialect.write(in, answer);
  }

  /** Plain code, no lambdas: each would bootstrap a call site on a path run at every tool call. */
  private HookAnswer shellPolicy(HookInput in) throws IOException {
    if (in.command().isEmpty()) {
      throw new IllegalStateException("the hook's input names no command");
    }
    ShellPolicy.Rule rule = ShellPolicy.of(env.get("COMPANION4J_EXTENSION")).check(in.command());
    if (rule == null) {
      return HookAnswer.NOTHING;
    }
    if (rule.decision() == ShellPolicy.Decision.ASK
        && !dialect.refusesAsksItCannotPut()
        && headless(caller.flatMap(StartedCompanions::cliProcess))) {
      return new HookAnswer(
          HookAnswer.Decision.DENY,
          rule.message() + " No one can answer in a headless run, so it is refused.",
          null,
          null);
    }
    HookAnswer.Decision decision =
        rule.decision() == ShellPolicy.Decision.DENY
            ? HookAnswer.Decision.DENY
            : HookAnswer.Decision.ASK;
    return new HookAnswer(decision, rule.message(), null, null);
  }

  /**
   * Whether {@code cli} runs without anyone to answer a question: given a prompt ({@code -p}) and
   * not {@code -i}, or without a terminal on its input, as the CLIs tell headless runs; also when
   * there is no telling.
   */
  static boolean headless(Optional<ProcessHandle> cli) {
    if (cli.isEmpty()) {
      return true;
    }
    boolean prompt = false;
    for (String a : cli.get().info().arguments().orElse(new String[0])) {
      if (a.equals("-i") || a.startsWith("--prompt-interactive")) {
        return false;
      }
      prompt |= a.equals("-p") || a.equals("--prompt") || a.startsWith("--prompt=");
    }
    if (prompt) {
      return true;
    }
    try {
      String input =
          Files.readSymbolicLink(Path.of("/proc", Long.toString(cli.get().pid()), "fd", "0"))
              .toString();
      return !(input.startsWith("/dev/pts/") || input.startsWith("/dev/tty"));
    } catch (IOException | UnsupportedOperationException e) {
      return true;
    }
  }

  private HookAnswer sessionStart(HookInput in) throws IOException, InterruptedException {
    Path workspace = workspace(in);
    IdeLink ide = new IdeLink(DiscoveryLocations.fromEnvironment(env));
    Optional<CompanionStatus> status = ide.status(workspace);
    String header = STATUS_HEADER;
    if (status.isEmpty() && autostart() && env.containsKey("COMPANION4J_LAUNCHER")) {
      Duration linger = linger();
      status =
          StartedCompanions.forUser(env)
              .start(
                  in.sessionId(), Path.of(env.get("COMPANION4J_LAUNCHER")), workspace, ide, linger);
      if (status.isPresent()) {
        header +=
            "A headless Companion4J companion was started for this session; "
                + (linger.isZero()
                    ? "it stops when the session ends.\n"
                    : "it stays after the session while a CLI is connected to it, and "
                        + (linger.toSeconds() % 60 == 0
                            ? linger.toMinutes() + " min"
                            : linger.toSeconds() + " s")
                        + " more, so that a CLI started later in this folder is in IDE mode. This session is not:"
                        + " the CLI looked for an IDE before the companion was there.\n");
      }
    }
    return HookAnswer.context(
        status.isPresent()
            ? header + StatusText.brief(status.get())
            : header + StatusText.none(workspace));
  }

  private HookAnswer sessionEnd(HookInput in) throws IOException {
    StartedCompanions companions = StartedCompanions.forUser(env);
    if (linger().isZero()) {
      companions.stop(in.sessionId());
    } else {
      companions.forget(in.sessionId());
    }
    return HookAnswer.NOTHING;
  }

  private HookAnswer subagentStart(HookInput in) {
    if (!ours(in.agentName())) {
      return HookAnswer.NOTHING;
    }
    Path workspace = workspace(in);
    return HookAnswer.context(
        new IdeLink(DiscoveryLocations.fromEnvironment(env))
            .status(workspace)
            .map(s -> STATUS_HEADER + StatusText.brief(s))
            .orElse(StatusText.none(workspace)));
  }

  private HookAnswer subagentStop(HookInput in) throws IOException {
    if (!ours(in.agentName()) || in.agentAnswer() == null) {
      return HookAnswer.NOTHING;
    }
    Path retried = StartedCompanions.forUser(env).handOffMark(in.sessionId(), in.agentName());
    if (HandOff.complete(in.agentAnswer())) {
      Files.deleteIfExists(retried);
      return HookAnswer.NOTHING;
    }
    if (in.stopHookActive() || Files.deleteIfExists(retried)) {
      return HookAnswer.notice(HandOff.LET_THROUGH);
    }
    if (!dialect.reportsRepeatedStop()) {
      Files.createFile(retried);
    }
    return new HookAnswer(HookAnswer.Decision.BLOCK, dialect.retryHandOff(), null, null);
  }

  /** Whether {@code agent} is one of this extension's agents (its {@code agents/} directory). */
  private boolean ours(String agent) {
    String extension = env.get("COMPANION4J_EXTENSION");
    return !agent.isEmpty()
        && extension != null
        && agent.matches("[a-z0-9_]+")
        && Files.isRegularFile(Path.of(extension, "agents", agent + ".md"));
  }

  private Path workspace(HookInput in) {
    String dir = env.getOrDefault("GEMINI_PROJECT_DIR", env.get("QWEN_PROJECT_DIR"));
    return dir != null
        ? Path.of(dir)
        : in.cwd().isEmpty() ? Path.of("").toAbsolutePath() : Path.of(in.cwd());
  }

  /**
   * The extension setting "Start a companion". The CLIs keep settings in the extension's {@code
   * .env} but do not hand them to hooks, so the file is read here; a variable set in the
   * environment wins.
   */
  private boolean autostart() throws IOException {
    String value = env.get(AUTOSTART);
    if (value == null || value.isBlank()) {
      value = setting(AUTOSTART);
    }
    return !"false".equalsIgnoreCase(value.trim());
  }

  /**
   * How long a companion the hook started stays once its CLI has ended and no CLI is connected:
   * {@code COMPANION4J_LINGER_SECONDS} (environment, else the extension's {@code .env}), 30 minutes
   * when unset; a value that is not a whole number of seconds from 0 is refused.
   */
  private Duration linger() throws IOException {
    String value = env.get(LINGER);
    if (value == null || value.isBlank()) {
      value = setting(LINGER);
    }
    if (value.isBlank()) {
      return Duration.ofSeconds(DEFAULT_LINGER_SECONDS);
    }
    try {
      long seconds = Long.parseLong(value.trim());
      if (seconds >= 0) {
        return Duration.ofSeconds(seconds);
      }
    } catch (NumberFormatException notANumber) {
      // refused below
    }
    throw new IllegalStateException(
        LINGER + " must be a whole number of seconds from 0, not \"" + value.trim() + "\"");
  }

  /** A setting from the first {@code .env} of this extension that names it, or empty. */
  private String setting(String name) throws IOException {
    for (Path file : settingsFiles()) {
      if (Files.isRegularFile(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          int eq = line.indexOf('=');
          if (eq > 0 && line.substring(0, eq).trim().equals(name)) {
            return line.substring(eq + 1).trim().replaceAll("^([\"'])(.*)\\1$", "$2");
          }
        }
      }
    }
    return "";
  }

  /**
   * Where the CLI keeps this extension's settings: beside an installed copy, or, for a linked
   * extension, in the CLI's own extensions folder.
   */
  private List<Path> settingsFiles() {
    List<Path> files = new ArrayList<>();
    String extension = env.get("COMPANION4J_EXTENSION");
    if (extension != null) {
      files.add(Path.of(extension, ".env"));
    }
    files.add(dialect.linkedSettings(env, DiscoveryLocations.home(env).toString()));
    return files;
  }
}
