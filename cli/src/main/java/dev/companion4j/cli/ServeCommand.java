package dev.companion4j.cli;

import dev.companion4j.cli.editorapi.EditorApi;
import dev.companion4j.engine.Companion;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

/** {@code companion4j serve}: a companion for the given roots until SIGINT or SIGTERM. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a companion for the workspace roots and serves until interrupted.",
      "Prints one JSON line on stdout when ready; logs go to stderr."
    })
final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CompanionOptions options;

  @Mixin DaemonOptions daemon;

  @Option(
      names = "--agent",
      paramLabel = "AGENT",
      description = {
        "Also chat on the page with an ACP agent the companion starts: qwen, gemini, or an agent's",
        "command line; its file writes are reviewed like a CLI's proposals."
      })
  String agent;

  @Option(
      names = "--exit-with-pid",
      paramLabel = "PID",
      description =
          "Stop when this process ends (the extension ties a companion it starts to its CLI session).")
  Long exitWithPid;

  @Option(
      names = "--linger",
      paramLabel = "SECONDS",
      defaultValue = "0",
      description = {
        "With --exit-with-pid: once that process has ended, stay while a CLI is connected and stop",
        "when none has been for this long (0: stop with the process)."
      })
  long lingerSeconds;

  @Override
  public Integer call() throws Exception {
    StartupMarks.mark("parsed");
    if (lingerSeconds < 0) {
      throw new ParameterException(
          spec.commandLine(), "--linger must be 0 or more seconds, not " + lingerSeconds);
    }
    // A spawned daemon serves the first root.
    HeadlessCompanion headless =
        options.build(spec, roots -> daemon.source(spec, System.getenv(), roots.get(0)));
    Companion companion = headless.companion();
    StartupMarks.mark("built");
    if (agent != null) {
      headless.chatWith(agent);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  headless.close();
                  stopped.countDown();
                },
                "companion4j-stop"));
    companion.start();
    headless.startChat();
    StartupMarks.mark("ready");
    System.out.println(readyLine(companion));
    System.out.flush();
    ReviewPages.announce(companion, options.open);
    if (exitWithPid != null) {
      ProcessHandle.of(exitWithPid)
          .map(ProcessHandle::onExit)
          .orElse(CompletableFuture.completedFuture(null))
          .thenRun(() -> exitWhenIdle(companion, Duration.ofSeconds(lingerSeconds)));
    }
    stopped.await();
    return 0;
  }

  /** Exits once no CLI has been connected for {@code linger}; checked every second. */
  private static void exitWhenIdle(Companion companion, Duration linger) {
    ScheduledExecutorService clock =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "companion4j-linger");
              t.setDaemon(true);
              return t;
            });
    long[] idleSince = {System.nanoTime()};
    clock.scheduleWithFixedDelay(
        () -> {
          if (!companion.clients().isEmpty()) {
            idleSince[0] = System.nanoTime();
          } else if (System.nanoTime() - idleSince[0] >= linger.toNanos()) {
            System.exit(0);
          }
        },
        0,
        1,
        TimeUnit.SECONDS);
  }

  static String readyLine(Companion companion) {
    Map<String, Object> ready = new LinkedHashMap<>();
    ready.put("event", "ready");
    ready.put("port", companion.port());
    ready.put("pid", ProcessHandle.current().pid());
    ready.put("workspacePath", companion.workspacePath());
    ready.put("editorApi", "http://127.0.0.1:" + companion.port() + EditorApi.PATH);
    ready.put("reviewPage", ReviewPages.address(companion.port()));
    return JsonMapper.shared().writeValueAsString(ready);
  }
}
