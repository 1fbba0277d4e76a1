package dev.companion4j.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.testkit.CliEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A companion that cannot write its discovery files where this user's own setup says they go does
 * not start: it says why in one line and leaves no file (and so no token) behind.
 */
class FailedStartIT {
  @TempDir Path temp;
  private final List<Path> madeUnwritable = new ArrayList<>();

  @AfterEach
  void makeDeletable() throws Exception {
    for (Path dir : madeUnwritable) {
      Planted.writable(dir);
    }
  }

  @Test
  void anUnwritableTmpDirFailsInOneLineAndRemovesTheLockAlreadyWritten() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    unwritable(env.tmpDir());

    JarCommand serve = serve(env.variables(), env);

    assertFailedInOneLineNaming(serve, env.tmpDir());
    assertNoDiscoveryFileIn(env.qwenHome());
  }

  @Test
  void aReadOnlyQwenHomeFailsInOneLineAndWritesNothing() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    unwritable(Files.createDirectories(env.qwenHome()));

    JarCommand serve = serve(env.variables(), env);

    assertFailedInOneLineNaming(serve, env.qwenHome());
    assertNoDiscoveryFileIn(env.tmpDir());
    assertNoDiscoveryFileIn(env.qwenHome());
  }

  @Test
  void aTmpDirThatIsAFileFailsInOneLineAndRemovesTheLockAlreadyWritten() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp);
    Path notADirectory = Files.writeString(temp.resolve("tmp-is-a-file"), "x");
    Map<String, String> vars = new HashMap<>(env.variables());
    vars.put("TMPDIR", notADirectory.toString());

    JarCommand serve = serve(vars, env);

    assertFailedInOneLineNaming(serve, notADirectory);
    assertNoDiscoveryFileIn(env.qwenHome());
  }

  private void unwritable(Path dir) throws Exception {
    Planted.unwritable(dir);
    madeUnwritable.add(dir);
  }

  private JarCommand serve(Map<String, String> vars, CliEnvironment env) throws Exception {
    return JarCommand.run(
        vars, env.workspace(), temp, "serve", "--workspace", env.workspace().toString());
  }

  private static void assertFailedInOneLineNaming(JarCommand serve, Path place) {
    assertThat(serve.exitCode()).as(serve.stderr()).isNotZero();
    assertThat(serve.stdout()).as("no ready line").isEmpty();
    List<String> lines = serve.stderr().lines().filter(l -> !l.isBlank()).toList();
    assertThat(lines).as(serve.stderr()).hasSize(1);
    assertThat(lines.get(0)).startsWith("companion4j: cannot start: ").contains(place.toString());
  }

  private static void assertNoDiscoveryFileIn(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(Files::isRegularFile)).as("left in " + dir).isEmpty();
    }
  }
}
