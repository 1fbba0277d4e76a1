package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.EditorEvents;
import dev.companion4j.cli.testing.RawMcp;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliDriver.Cli;
import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Stopping a busy companion, again and again: with a review page's event stream open, a real CLI
 * connected with a diff pending and a second session's notification stream open, SIGTERM ends it
 * cleanly every time.
 */
class RepeatedStopIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int STOPS = 8;
  private static final Pattern DISCOVERY_FILE =
      Pattern.compile("\\d+\\.lock|gemini-ide-server-.*\\.json|qwen-code-ide-server-.*\\.json");

  @TempDir Path temp;

  @Test
  void sigtermEndsABusyCompanionCleanlyEveryTime() throws Exception {
    for (int round = 1; round <= STOPS; round++) {
      stopOnce(round, temp.resolve("round" + round));
    }
  }

  private void stopOnce(int round, Path root) throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    Path file = env.file("src/Main.java", "class Main {}\n");
    CompanionProcess companion = CompanionProcess.start(env);
    CliDriver cli = null;
    EditorEvents page = null;
    Socket stream = null;
    try {
      page = EditorEvents.subscribe(companion);
      Map<String, String> vars = new HashMap<>(env.variables());
      vars.put(Cli.QWEN.portVariable(), Integer.toString(companion.port()));
      cli = CliDriver.start(Cli.QWEN, env.workspace(), vars);
      assertThat(cli.connect().path("status").asString()).as(cli.stderr()).isEqualTo("connected");
      String raw = RawMcp.initialize(companion, "raw-session");
      stream = RawMcp.frozenNotificationStream(companion, raw);
      companion.event(Map.of("type", "focus", "path", file.toString()));
      String proposed = "class Main { int round = " + round + "; }\n";
      CompletableFuture<JsonNode> outcome =
          cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", proposed));
      Review.awaitPendingDiff(companion, file, proposed, WAIT);
      EditorEvents reviewPage = page;
      await().atMost(WAIT).until(() -> reviewPage.count("diffOpened") == 1);
      assertThat(Review.clients(companion)).hasSize(2);

      int exit = companion.terminate();

      String log =
          "round "
              + round
              + "\nstdout:\n"
              + companion.stdout()
              + "\nstderr:\n"
              + companion.stderr();
      assertThat(companion.stdout() + companion.stderr())
          .as(log)
          .doesNotContain("Exception")
          .doesNotContain("\tat ");
      assertThat(discoveryFiles(env)).as(log).isEmpty();
      // The CLI heard that its edit will not be applied; the page saw its stream end.
      assertThat(CliDriver.await(outcome, WAIT).path("status").asString())
          .as(log)
          .isEqualTo("rejected");
      await().atMost(WAIT).until(reviewPage::ended);
      // SIGTERM ends the JVM with 143 (128 + 15) once the shutdown hooks ran, as for any process
      // stopped by that signal; an error on the way out would end it with 1.
      assertThat(exit).as(log).isEqualTo(143);
    } finally {
      if (stream != null) {
        stream.close();
      }
      if (page != null) {
        page.close();
      }
      if (cli != null) {
        cli.close();
      }
      companion.close();
    }
  }

  /** Every discovery file of any generation under the test's HOME and TMPDIR. */
  private static List<Path> discoveryFiles(CliEnvironment env) throws IOException {
    try (Stream<Path> home = Files.walk(env.home());
        Stream<Path> tmp = Files.walk(env.tmpDir())) {
      return Stream.concat(home, tmp)
          .filter(Files::isRegularFile)
          .filter(p -> DISCOVERY_FILE.matcher(p.getFileName().toString()).matches())
          .toList();
    }
  }
}
