package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.TestPeers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extension's IDE tools answered by the Eclipse IDE as scripts/run-eclipse.sh starts it: the
 * real Qwen Code 0.24.4 and Gemini CLI 0.61.0 headless, the extension installed in its default
 * configuration by {@code companion4j extension install}, a fake model calling {@code
 * get_diagnostics} (JDT's compile error) and {@code open_file} (the caret lands at the line and
 * column asked).
 */
class EclipseIdeToolsIT {
  /** One JDT error, line 4, column 15: a String assigned to an int. */
  private static final String BROKEN_TEXT =
      String.join(
          "\n",
          "package app;",
          "",
          "class Broken {",
          "  int count = \"three\";",
          "",
          "  String name() {",
          "    return \"broken\";",
          "  }",
          "}",
          "");

  @TempDir Path root;

  @Test
  void jdtsErrorAndOpeningAPlaceReachBothClisThroughTheExtensionsTools() throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    EclipseCompanionIT.javaProject(env);
    Path broken = env.file("src/app/Broken.java", BROKEN_TEXT);
    try (FakeModelServer model = new FakeModelServer()) {
      List<HeadlessCli> clis =
          List.of(
              new HeadlessCli(HeadlessCli.Kind.QWEN, env, model),
              new HeadlessCli(HeadlessCli.Kind.GEMINI, env, model));
      // The shaded companion4j command, as a user installs the extension with it.
      List<String> companion4j =
          List.of(
              ProcessHandle.current().info().command().orElse("java"),
              "-jar",
              TestPeers.repoRoot().resolve("cli/target/companion4j.jar").toString());
      for (HeadlessCli cli : clis) {
        HeadlessCli.Result install = cli.install(companion4j);
        assertThat(install.exitCode()).as(install.stdout() + install.stderr()).isZero();
      }

      try (EclipseRun eclipse =
          EclipseRun.start(root, env.variables(), EclipseCompanionIT.BOOT, env.workspace())) {
        EclipseCompanionIT.Companion companion =
            EclipseCompanionIT.Companion.at(eclipse.port(), env.qwenHome());
        // The user has the file open; JDT has built the project and marked its error.
        companion.openAwaitingDiagnostic(broken, "Type mismatch");

        for (HeadlessCli cli : clis) {
          int line = cli.kind == HeadlessCli.Kind.QWEN ? 7 : 6;
          int column = cli.kind == HeadlessCli.Kind.QWEN ? 5 : 3;
          int before = model.requests().size();
          HeadlessCli.Result run =
              cli.prompt(
                  "Fix the errors. "
                      + cli.kind.ideToolCall(
                          "get_diagnostics", "{\"path\":\"src/app/Broken.java\"}")
                      + cli.kind.ideToolCall(
                          "open_file",
                          "{\"path\":\"src/app/Broken.java\",\"line\":"
                              + line
                              + ",\"column\":"
                              + column
                              + "}"),
                  Map.of());
          List<String> results = cli.toolResults(before);
          assertThat(results).as(cli.kind + ": " + run).hasSize(2);
          assertThat(results.get(0))
              .as(cli.kind.runtime)
              .contains(broken + " (1 error)")
              .contains(
                  "line 4, column 15: error: Type mismatch: cannot convert from String to int");
          assertThat(results.get(1)).as(cli.kind.runtime).contains("Opened Broken.java");
          await()
              .atMost(EclipseCompanionIT.WAIT)
              .until(
                  () -> companion.status().path("activeFile"),
                  active ->
                      active.path("path").asString("").equals(broken.toString())
                          && active.path("line").asInt() == line
                          && active.path("character").asInt() == column);
        }
      }
    }
  }
}
