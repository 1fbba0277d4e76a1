package dev.companion4j.cli.bench;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.extension.install.ExtensionInstaller;
import dev.companion4j.extension.install.HookCache;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A hook's round trip, process start to answer, as the CLIs pay it on every tool call: the
 * extension's Java hook runner (through its launcher, with the class cache trained at install)
 * against Node scripts doing the same work, side by side in one run.
 *
 * <p>Run with {@code scripts/benchmark.sh hooks}.
 */
public final class HookBenchmark {
  private static final int WARMUP = 5;
  private static final int RUNS = 40;

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

    System.out.printf(
        "%n%-70s %10s %10s%n", "PreToolUse shell policy (rm -rf build: deny)", "p50", "p90");
    for (Map.Entry<String, Path> l : launchers.entrySet()) {
      report(
          l.getKey(),
          List.of(l.getValue().toString(), "hook", "qwen", "shell-policy"),
          policyInput,
          vars,
          "deny");
    }
    // The Node script matches the rules' regular expressions, not the shell grammar the Java policy
    // reads: a floor, not a twin.
    report(
        "Node script (the rules' patterns, same answer)",
        List.of("node", nodePolicy.toString(), rules.toString()),
        policyInput,
        vars,
        "deny");

    try (CompanionProcess companion = CompanionProcess.start(env)) {
      System.out.printf(
          "%n%-70s %10s %10s%n",
          "SessionStart status (companion on port " + companion.port() + ")", "p50", "p90");
      for (Map.Entry<String, Path> l : launchers.entrySet()) {
        report(
            l.getKey(),
            List.of(l.getValue().toString(), "hook", "qwen", "session-start"),
            startInput,
            vars,
            "Workspace roots");
      }
      report(
          "Node script (same discovery, same request)",
          List.of("node", nodeStart.toString()),
          startInput,
          vars,
          "Workspace roots");
    }
  }

  private static void report(
      String name, List<String> command, String input, Map<String, String> env, String expected)
      throws Exception {
    long[] samples = new long[RUNS];
    for (int i = -WARMUP; i < RUNS; i++) {
      long start = System.nanoTime();
      String out = once(command, input, env);
      long took = System.nanoTime() - start;
      if (!out.contains(expected)) {
        throw new IllegalStateException(name + " answered: " + out);
      }
      if (i >= 0) {
        samples[i] = took;
      }
    }
    System.out.printf(
        "%-70s %10s %10s%n",
        name,
        BenchSupport.millis(BenchSupport.percentile(samples, 50)),
        BenchSupport.millis(BenchSupport.percentile(samples, 90)));
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
