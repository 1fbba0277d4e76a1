package dev.companion4j.cli;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code companion4j serve} with room for 128 CLI sessions instead of its 32, for the load case of
 * {@code scripts/benchmark.sh side-by-side} (test-peers/side-by-side/bench.mjs), which connects 100.
 * All else is serve's: the headless companion with its editor API, the ready line, stopping on
 * SIGTERM. The benchmark runs it from the shaded jar with this class appended to the class path.
 */
public final class UncappedServe {
  private UncappedServe() {}

  public static void main(String[] args) throws Exception {
    HeadlessCompanion headless = HeadlessCompanion.build(
        new IdeInfo("companion4j", "Companion4J"), List.of(Path.of("").toAbsolutePath()), builder -> builder.maxClients(128));
    Runtime.getRuntime().addShutdownHook(new Thread(headless::close, "companion4j-stop"));
    Companion companion = headless.companion();
    companion.start();
    System.out.println(ServeCommand.readyLine(companion));
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
