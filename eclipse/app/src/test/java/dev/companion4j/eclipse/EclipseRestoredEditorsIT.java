package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The editors a user left open reach the CLIs when Eclipse starts again: the workbench restores
 * them before the companion starts, and only the active one as an editor, the other as its tab.
 */
class EclipseRestoredEditorsIT {
  private static final Duration BOOT = EclipseCompanionIT.BOOT;
  private static final Duration WAIT = EclipseCompanionIT.WAIT;

  @TempDir Path root;

  @Test
  void theEditorsOpenAtExitReachBothClisAfterARestartTheActiveOneFirst() throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    Path first = env.file("First.txt", "one\n");
    Path second = env.file("Second.txt", "two\n");

    try (EclipseRun eclipse = EclipseRun.start(root, env.variables(), BOOT, env.workspace())) {
      EclipseCompanionIT.Companion companion =
          EclipseCompanionIT.Companion.at(eclipse.port(), env.qwenHome());
      for (Path file : List.of(second, first)) {
        assertThat(companion.post("/ide/open", Map.of("path", file.toString())).statusCode())
            .isEqualTo(200);
      }
      String display = eclipse.display();
      // File > Exit (Alt+F, X, the pointer over the editor area since keys go to the window under
      // it): the workbench saves its editors and closes. (The JVM the script
      // started stays, since EclipseStarter's main keeps the framework running; SIGTERM ends it.)
      ScreenUser.act(
          display,
          "move",
          EclipseCompanionIT.RIGHT_SIDE_X,
          EclipseCompanionIT.RIGHT_SIDE_Y,
          "keys",
          "alt+F",
          "type",
          "x");
      Path saved =
          root.resolve("eclipse-data/.metadata/.plugins/org.eclipse.e4.workbench/workbench.xmi");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  Files.exists(saved)
                      && Files.readString(saved).strip().endsWith("</application:Application>"));
      // The companion ends with the workbench: the CLIs find no IDE that is gone.
      Path lock = env.qwenHome().resolve("ide/" + eclipse.port() + ".lock");
      await().atMost(WAIT).until(() -> !Files.exists(lock));
    }

    try (EclipseRun again = EclipseRun.start(root, env.variables(), BOOT, env.workspace())) {
      for (CliDriver.Cli kind : CliDriver.Cli.values()) {
        try (CliDriver cli = CliDriver.start(kind, env.workspace(), env.variables())) {
          assertThat(cli.connect().path("status").asString()).isEqualTo("connected");
          cli.awaitContext(
              c ->
                  EclipseCompanionIT.openFiles(c)
                          .equals(List.of(first.toString(), second.toString()))
                      && c.path("workspaceState")
                          .path("openFiles")
                          .path(0)
                          .path("isActive")
                          .asBoolean(),
              WAIT);
        }
      }
    }
  }
}
