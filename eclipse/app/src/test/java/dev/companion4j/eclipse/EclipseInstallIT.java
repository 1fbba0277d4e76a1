package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.testkit.CliEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The p2 repository zip installs as a user installs it: into an Eclipse that p2 installed from the
 * IDE's bundles (profile, bundles.info, config.ini), with p2's director against the zip (what Help
 * > Install New Software > Add > Archive does), and after the restart the companion serves: a
 * discovery file naming "Eclipse IDE". The same Eclipse before the install has no companion.
 */
class EclipseInstallIT {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;

  @Test
  void theZipInstallsIntoAnEclipseWhoseCompanionServesAfterTheRestart() throws Exception {
    Path repo = Path.of(System.getProperty("companion4j.repoRoot"));
    Path p2 = repo.resolve("scripts/eclipse-p2.sh");
    Path tool = repo.resolve("eclipse/repository/target/p2/plugins");
    Path zip;
    try (Stream<Path> built = Files.list(repo.resolve("eclipse/repository/target"))) {
      zip =
          built
              .filter(f -> f.getFileName().toString().matches("companion4j-eclipse-.*\\.zip"))
              .findFirst()
              .orElseThrow();
    }
    Path installer = Path.of(EclipseInstallIT.class.getResource("/install-eclipse.sh").toURI());
    run(
        "eclipse",
        Map.of("ECLIPSE_P2_SCRIPT", p2.toString()),
        "bash",
        installer.toString(),
        tool.toString(),
        repo.resolve("eclipse/app/target/eclipse/plugins").toString(),
        root.resolve("user").toString());
    Path eclipse = root.resolve("user/eclipse");

    CliEnvironment env = CliEnvironment.in(root.resolve("session"));
    env.file("Hello.txt", "hello\n");
    Path data = root.resolve("eclipse-data");
    Path discovery = env.qwenHome().resolve("ide");

    // Before the install: the workbench comes up, and no companion with it.
    Process before = start(repo, eclipse, data, env);
    try {
      await()
          .atMost(BOOT)
          .until(
              () -> Files.isDirectory(data.resolve(".metadata/.plugins/org.eclipse.ui.workbench")));
      await()
          .during(Duration.ofSeconds(15))
          .atMost(Duration.ofSeconds(30))
          .until(() -> locks(discovery).isEmpty());
    } finally {
      EclipseRun.stop(before);
    }

    run(
        "director",
        Map.of(),
        "bash",
        p2.toString(),
        tool.toString(),
        "org.eclipse.equinox.p2.director",
        "-repository",
        "jar:" + zip.toUri() + "!/",
        "-installIU",
        "dev.companion4j.eclipse.feature.feature.group",
        "-destination",
        eclipse.toString(),
        "-profile",
        "user");

    Process after = start(repo, eclipse, data, env);
    try {
      await().atMost(BOOT).until(() -> locks(discovery).size() == 1);
      String lock = Files.readString(locks(discovery).get(0));
      assertThat(JSON.readTree(lock).path("ideInfo").path("displayName").asString())
          .isEqualTo("Eclipse IDE");
      assertThat(lock).contains(env.workspace().toString());
    } finally {
      EclipseRun.stop(after);
    }
  }

  /** The installed Eclipse, started by the script the other tests use, under its own Xvfb. */
  private Process start(Path repo, Path eclipse, Path data, CliEnvironment env) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
            "bash",
            repo.resolve("scripts/run-eclipse.sh").toString(),
            "--eclipse",
            eclipse.toString(),
            "--data",
            data.toString(),
            env.workspace().toString());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("eclipse.out").toFile()));
    pb.redirectError(ProcessBuilder.Redirect.appendTo(root.resolve("eclipse.err").toFile()));
    return pb.start();
  }

  private void run(String name, Map<String, String> variables, String... command) throws Exception {
    Path log = root.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(variables);
    pb.redirectOutput(log.toFile());
    Process process = pb.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
    }
    assertThat(process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1)
        .as(name + ": " + Files.readString(log))
        .isZero();
  }

  private static List<Path> locks(Path discovery) throws IOException {
    if (!Files.isDirectory(discovery)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(discovery)) {
      return files.filter(f -> f.toString().endsWith(".lock")).toList();
    }
  }
}
