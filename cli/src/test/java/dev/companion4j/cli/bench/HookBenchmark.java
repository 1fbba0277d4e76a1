package dev.companion4j.cli.bench;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.extension.install.ExtensionInstaller;
import dev.companion4j.extension.install.HookCache;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A hook's round trip, process start to answer, as the CLIs pay it on every tool call: the
 * extension's Java hook runner (through its launcher, with the class cache trained at install) on
 * the newest JDK and on JDK 17, against Node scripts doing the same work, side by side in one run
 * and alternating, so that a change in the machine's load reaches every variant alike. Beside the
 * wall-clock p50 and p90 it prints the mean CPU time (user and system) each call cost, the shell
 * policy's resident answerer's included.
 *
 * <p>Run with {@code scripts/benchmark.sh hooks}; {@code scripts/benchmark.sh hooks <jar>} (system
 * property {@code companion4j.bench.baseline}) also stages an earlier build's jar and runs its
 * hooks in the same rounds, for an A/B comparison.
 */
public final class HookBenchmark {
  private static final int WARMUP = 5;
  private static final int RUNS = 60;

  /**
   * One way of answering a hook: its name, command and the variables it adds; {@code answerer} is
   * the extension whose resident policy answerer serves it (its CPU time counts), or null; with
   * {@code startsAnswerer}, none runs when a call starts (a session start that starts one).
   */
  private record Variant(
      String name,
      List<String> command,
      Map<String, String> variables,
      Path answerer,
      boolean startsAnswerer) {
    Variant(String name, List<String> command) {
      this(name, command, Map.of(), null, false);
    }
  }

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("hook-bench");
    try {
      run(work);
    } finally {
      BenchSupport.delete(work);
    }
  }

  private static void run(Path work) throws Exception {
    Path jar = CompanionProcess.jar();
    Path newest = HookCache.java();
    Path jdk17 = Path.of(ProcessHandle.current().info().command().orElse("java"));
    ExtensionInstaller installer = new ExtensionInstaller(System.out);
    Map<String, Path> launchers = new LinkedHashMap<>();
    installer.prepare(ExtensionInstaller.Cli.QWEN, work.resolve("newest"), newest, jar);
    launchers.put("Java hook (" + newest + ", cache)", work.resolve("newest/bin/companion4j"));
    if (!newest.equals(jdk17)) {
      installer.prepare(ExtensionInstaller.Cli.QWEN, work.resolve("jdk17"), jdk17, jar);
      launchers.put(
          "Java hook (" + jdk17 + ", CDS archive)", work.resolve("jdk17/bin/companion4j"));
    }
    // An A/B run: the same variants staged again with an earlier build's jar, measured in turn.
    String baseline = System.getProperty("companion4j.bench.baseline", "");
    if (!baseline.isEmpty()) {
      Path baseJar = Path.of(baseline);
      installer.prepare(ExtensionInstaller.Cli.QWEN, work.resolve("newest-base"), newest, baseJar);
      launchers.put(
          "baseline: Java hook (" + newest + ", cache)",
          work.resolve("newest-base/bin/companion4j"));
      if (!newest.equals(jdk17)) {
        installer.prepare(ExtensionInstaller.Cli.QWEN, work.resolve("jdk17-base"), jdk17, baseJar);
        launchers.put(
            "baseline: Java hook (" + jdk17 + ", CDS archive)",
            work.resolve("jdk17-base/bin/companion4j"));
      }
    }
    Path nodePolicy = TestPeers.dir().resolve("hook-bench/policy-hook.mjs");
    Path nodeStart = TestPeers.dir().resolve("hook-bench/session-start-hook.mjs");
    Path rules = TestPeers.repoRoot().resolve("extension/source/shell-policy.json");

    CliEnvironment env = CliEnvironment.in(work.resolve("env"));
    Map<String, String> vars = new LinkedHashMap<>(env.variables());
    vars.put("COMPANION4J_AUTOSTART", "false");
    String policyInput =
        "{\"session_id\":\"bench\",\"hook_event_name\":\"PreToolUse\",\"cwd\":\""
            + env.workspace()
            + "\",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"rm -rf build\"}}";
    String startInput =
        "{\"session_id\":\"bench\",\"hook_event_name\":\"SessionStart\",\"cwd\":\""
            + env.workspace()
            + "\",\"source\":\"startup\"}";

    // Each launcher as it runs by default, with its resident answerer (started by its first call,
    // in the warm-up, as a session start starts it), and with a Java for every call, as where no
    // answerer runs (COMPANION4J_POLICY_SERVER=off).
    List<Variant> policy = new ArrayList<>();
    for (Map.Entry<String, Path> l : launchers.entrySet()) {
      List<String> command = List.of(l.getValue().toString(), "hook", "qwen", "shell-policy");
      policy.add(
          new Variant(
              l.getKey() + ", answerer",
              command,
              Map.of(),
              l.getValue().getParent().getParent(),
              false));
      policy.add(
          new Variant(
              l.getKey() + ", a Java per call",
              command,
              Map.of("COMPANION4J_POLICY_SERVER", "off"),
              null,
              false));
    }
    // The Node script matches the rules' regular expressions, not the shell grammar the Java policy
    // reads: a floor, not a twin.
    policy.add(
        new Variant(
            "Node script (the rules' patterns, same answer)",
            List.of("node", nodePolicy.toString(), rules.toString())));
    report("PreToolUse shell policy (rm -rf build: deny)", policy, policyInput, vars, "deny");

    try (CompanionProcess companion = CompanionProcess.start(env)) {
      List<Variant> start = new ArrayList<>();
      // With the policy's answerer running (the hook's Java takes the launcher's place), and with
      // none, when the launcher starts one after the hook's answer (the answerer's start is
      // awaited after each such call, outside the measure, so that it does not load the next).
      for (Map.Entry<String, Path> l : launchers.entrySet()) {
        List<String> command = List.of(l.getValue().toString(), "hook", "qwen", "session-start");
        Path extension = l.getValue().getParent().getParent();
        start.add(new Variant(l.getKey() + ", answerer running", command, Map.of(), null, false));
        start.add(
            new Variant(
                l.getKey() + ", starting the answerer", command, Map.of(), extension, true));
      }
      start.add(
          new Variant(
              "Node script (same discovery, same request)", List.of("node", nodeStart.toString())));
      report(
          "SessionStart status (companion on port " + companion.port() + ")",
          start,
          startInput,
          vars,
          "Workspace roots");
    }
  }

  /** Runs the variants in turn, round after round, and prints each one's p50 and p90. */
  private static void report(
      String title, List<Variant> variants, String input, Map<String, String> env, String expected)
      throws Exception {
    long[][] samples = new long[variants.size()][RUNS];
    long[] cpuTicks = new long[variants.size()];
    for (int i = -WARMUP; i < RUNS; i++) {
      for (int v = 0; v < variants.size(); v++) {
        Variant variant = variants.get(v);
        Map<String, String> vars = new LinkedHashMap<>(env);
        vars.putAll(variant.variables());
        if (variant.startsAnswerer()) {
          stopAnswerer(variant.answerer());
        }
        long answerer =
            i >= 0 && variant.answerer() != null && !variant.startsAnswerer()
                ? answerer(variant)
                : 0;
        long cpuBefore = childrenCpuTicks() + (answerer > 0 ? cpuTicks(answerer) : 0);
        long start = System.nanoTime();
        String out = once(variant.command(), input, vars);
        long took = System.nanoTime() - start;
        if (!out.contains(expected)) {
          throw new IllegalStateException(variant.name() + " answered: " + out);
        }
        if (variant.startsAnswerer()) {
          awaitAnswerer(variant);
        }
        if (i >= 0) {
          samples[v][i] = took;
          cpuTicks[v] += childrenCpuTicks() + (answerer > 0 ? cpuTicks(answerer) : 0) - cpuBefore;
        }
      }
    }
    System.out.printf(
        "%n%-70s %10s %10s %10s   (load average %s)%n",
        title, "p50", "p90", "CPU mean", Files.readString(Path.of("/proc/loadavg")).trim());
    for (int v = 0; v < variants.size(); v++) {
      System.out.printf(
          "%-70s %10s %10s %10s%n",
          variants.get(v).name(),
          BenchSupport.millis(BenchSupport.percentile(samples[v], 50)),
          BenchSupport.millis(BenchSupport.percentile(samples[v], 90)),
          BenchSupport.millis(cpuTicks[v] * 10_000_000L / RUNS));
    }
  }

  /**
   * The pid of the variant's resident answerer, which its warm-up calls started: a measured call
   * that it did not answer would measure something else.
   */
  private static long answerer(Variant variant) throws Exception {
    return running(variant.answerer())
        .orElseThrow(
            () ->
                new IllegalStateException(variant.name() + ": no answerer runs after the warm-up"))
        .pid();
  }

  /** The answerer {@code extension}'s {@code run/pid} names, while that process exists. */
  private static Optional<ProcessHandle> running(Path extension) throws IOException {
    // The answerer writes the file whole and moves it into place.
    Path pid = extension.resolve("run/pid");
    return Files.isRegularFile(pid)
        ? ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
        : Optional.empty();
  }

  /**
   * Stops the resident answerer of {@code extension}, if one runs, and waits until it removed its
   * pid (not until it is reaped: where the machine's init does not reap, it stays a zombie).
   */
  private static void stopAnswerer(Path extension) throws Exception {
    running(extension).ifPresent(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Files.exists(extension.resolve("run/pid"))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the answerer in " + extension + " did not stop");
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
  }

  /** Waits until the answerer a call started runs, 10 s at most. */
  private static void awaitAnswerer(Variant variant) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (running(variant.answerer()).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(variant.name() + ": no answerer started");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /**
   * The user and system CPU time of this process's ended and reaped children, in clock ticks (10
   * ms): a hook's whole cost to the machine, its launcher and JVM threads included.
   */
  private static long childrenCpuTicks() throws Exception {
    // Fields after the command's closing parenthesis, from the state (field 3): cutime is 16.
    String[] f = statFields("self");
    return Long.parseLong(f[13]) + Long.parseLong(f[14]);
  }

  /** The user and system CPU time process {@code pid} used, in clock ticks. */
  private static long cpuTicks(long pid) throws Exception {
    // utime is field 14, stime 15.
    String[] f = statFields(Long.toString(pid));
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static String[] statFields(String pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", pid, "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
  }

  private static String once(List<String> command, String input, Map<String, String> env)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    try (OutputStream stdin = p.getOutputStream()) {
      stdin.write(input.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }
}
