package dev.companion4j.cli.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code companion4j} launcher script in a copy of the project's layout, with stand-ins for
 * {@code mvn} and {@code java} that record their calls: it rebuilds when a source changed, and only
 * then; it runs the newest JDK it finds, recording what speeds up its start once per build.
 */
class LauncherTest {
  private static final FileTime BUILT = FileTime.from(Instant.parse("2026-01-01T12:00:00Z"));
  private static final FileTime BEFORE = FileTime.from(Instant.parse("2026-01-01T11:00:00Z"));
  private static final FileTime RECORDED = FileTime.from(Instant.parse("2026-01-01T12:01:00Z"));
  private static final FileTime AFTER = FileTime.from(Instant.parse("2026-01-01T13:00:00Z"));

  @TempDir Path temp;
  Path repo;
  Path calls;

  @BeforeEach
  void layOut() throws IOException {
    repo = Files.createDirectories(temp.resolve("repo"));
    calls = temp.resolve("calls.txt");
    Files.copy(TestPeers.repoRoot().resolve("companion4j"), repo.resolve("companion4j"));
    Files.writeString(
        Files.createDirectories(repo.resolve("cli")).resolve("jvm.options"), "# none\n");
  }

  @Test
  void buildsWhenThereIsNoJar() throws Exception {
    source("pom.xml");
    assertThat(launch()).containsExactly("mvn", "java");
  }

  @Test
  void aChangedSourceRebuilds() throws Exception {
    for (String source :
        List.of(
            "engine/src/main/java/A.java",
            "cli/src/main/frontend/src/main.js",
            "daemon/pom.xml",
            "extension/source/context.md",
            ".mvn/jvm.config")) {
      built();
      touch(source, AFTER);
      assertThat(launch()).as(source).containsExactly("mvn", "java");
    }
  }

  @Test
  void buildOutputsTestsAndInstalledPackagesDoNotRebuild() throws Exception {
    built();
    for (String output :
        List.of(
            "engine/target/classes/A.class",
            "engine/target/surefire-reports/TEST-A.xml",
            "cli/src/main/frontend/node_modules/esbuild/package.json",
            "engine/src/test/java/ATest.java",
            "netbeans/module/src/main/java/B.java",
            "docs/architecture.md")) {
      touch(output, AFTER);
    }
    assertThat(launch()).containsExactly("java");
  }

  @Test
  void aNewerJdkBesideTheOneOnPathRunsWithAnAheadOfTimeCacheRecordedOnce() throws Exception {
    built();
    jdk("jdk-21", "21.0.4");
    jdk("temurin-25", "25.0.3");
    Path cache = repo.resolve("cli/target/companion4j-25.aot");

    List<String> first = launchedWith();
    assertThat(first).hasSize(2);
    assertThat(first.get(0))
        .startsWith("temurin-25 ")
        .contains("-XX:AOTCacheOutput=" + cache + ".")
        .endsWith(" selftest");
    assertThat(first.get(1))
        .startsWith("temurin-25 ")
        .contains("-XX:AOTCache=" + cache + " ")
        .endsWith(" status");
    assertThat(cache).exists();

    assertThat(launchedWith()).singleElement().asString().contains("-XX:AOTCache=" + cache + " ");
  }

  @Test
  void aJdkBefore25RecordsAClassDataArchiveAndARebuildDropsIt() throws Exception {
    built();
    jdk("jdk-21", "21.0.4");
    Path archive = repo.resolve("cli/target/companion4j-21.jsa");

    assertThat(launchedWith())
        .first()
        .asString()
        .contains("-XX:ArchiveClassesAtExit=" + archive + ".");
    assertThat(archive).exists();
    touch("engine/src/main/java/A.java", AFTER);
    launchedWith();
    assertThat(Files.readAllLines(calls))
        .filteredOn(line -> line.contains("ArchiveClassesAtExit"))
        .hasSize(1);
  }

  @Test
  void aJarBuiltAfterItsCacheGetsANewOne() throws Exception {
    built();
    jdk("temurin-25", "25.0.3");
    touch("cli/target/companion4j-25.aot", RECORDED);
    touch("cli/target/companion4j.jar", AFTER);

    assertThat(launchedWith()).first().asString().contains("-XX:AOTCacheOutput=");
    assertThat(launchedWith()).singleElement().asString().contains("-XX:AOTCache=");
  }

  @Test
  void companion4jJavaOverridesTheSearch() throws Exception {
    built();
    jdk("temurin-25", "25.0.3");
    Path chosen = jdk("jdk-21", "21.0.4");

    assertThat(launch(Map.of("COMPANION4J_JAVA", chosen.toString()))).containsExactly("jdk-21");
  }

  /** A jar newer than every source, and the sources it was built from. */
  private void built() throws IOException {
    touch("pom.xml", BEFORE);
    touch("engine/src/main/java/A.java", BEFORE);
    touch("cli/target/companion4j.jar", BUILT);
    touch("cli/target/companion4j-0.jsa", RECORDED);
  }

  /**
   * A JDK in the folder the launcher searches: its release file and a java that records its name
   * and arguments, and writes the archive or cache it is asked to record.
   */
  private Path jdk(String name, String version) throws IOException {
    Path home = Files.createDirectories(temp.resolve("jdks").resolve(name));
    Files.writeString(
        home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
    Path bin = Files.createDirectories(home.resolve("bin"));
    stub(
        bin,
        "java",
        "echo \""
            + name
            + " $*\" >> '"
            + calls
            + "'\n"
            + "for a in \"$@\"; do case \"$a\" in -XX:AOTCacheOutput=*|-XX:ArchiveClassesAtExit=*) : > \"${a#*=}\";; esac; done");
    return bin.resolve("java");
  }

  /** Runs {@code companion4j status}; returns each java call with its arguments. */
  private List<String> launchedWith() throws Exception {
    launch(Map.of());
    return Files.readAllLines(calls).stream().filter(line -> !line.equals("mvn")).toList();
  }

  private void source(String relative) throws IOException {
    touch(relative, BEFORE);
  }

  private void touch(String relative, FileTime time) throws IOException {
    Path file = repo.resolve(relative);
    Files.createDirectories(file.getParent());
    if (!Files.exists(file)) {
      Files.writeString(file, "x");
    }
    Files.setLastModifiedTime(file, time);
  }

  private List<String> launch() throws Exception {
    return launch(Map.of());
  }

  /**
   * Runs {@code companion4j status} with these variables; returns the programs it ran, in order.
   * The launcher searches {@code temp/jdks} for JDKs besides the java on PATH.
   */
  private List<String> launch(Map<String, String> variables) throws Exception {
    Files.deleteIfExists(calls);
    Path bin = Files.createDirectories(temp.resolve("bin"));
    // mvn "builds" by writing the jar; java only records that it ran.
    stub(
        bin,
        "mvn",
        "echo mvn >> '" + calls + "'; mkdir -p cli/target; : > cli/target/companion4j.jar");
    stub(bin, "java", "echo java >> '" + calls + "'");
    for (String tool : List.of("node", "npm")) {
      stub(bin, tool, "exit 0");
    }
    ProcessBuilder pb =
        new ProcessBuilder(repo.resolve("companion4j").toString(), "status")
            .redirectErrorStream(true)
            .redirectOutput(temp.resolve("out.txt").toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .directory(repo.toFile());
    pb.environment().put("PATH", bin + ":/usr/bin:/bin");
    pb.environment().put("COMPANION4J_JDKS", temp.resolve("jdks").toString());
    pb.environment().remove("COMPANION4J_JAVA");
    pb.environment().putAll(variables);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(temp.resolve("out.txt"))).isZero();
    // The class-data archive is recorded with a java call of its own after a build: count it once.
    return Files.readAllLines(calls).stream().map(line -> line.split(" ")[0]).distinct().toList();
  }

  private static void stub(Path bin, String name, String body) throws IOException {
    Path file = bin.resolve(name);
    Files.writeString(file, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
  }
}
