package dev.companion4j.extension.install;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The class cache that makes a hook start quickly: trained once at install by a run of the hook
 * runner. A JDK 25 or newer gets an AOT cache (classes loaded and linked ahead of time); older ones
 * a class-data-sharing archive. The launcher takes {@code lib/hook-<handler>} before {@code
 * lib/hook} for a hook and {@code lib/companion} for any other command, with the options each was
 * trained with.
 */
public final class HookCache {
  /** The first release whose AOT cache the launcher uses. */
  private static final int AOT_RELEASE = 25;

  private static final String MAIN = "dev.companion4j.extension.hook.HookMain";

  /** The file in {@code lib} naming the class path the class-data archives were dumped with. */
  static final String CLASS_PATH = "hook.classpath";

  /** The system property through which a release's launcher names its Java. */
  static final String LAUNCHER_JAVA = "companion4j.java";

  private HookCache() {}

  /**
   * The Java the extension runs with: the newest JDK of release 25 or later beside this one, else
   * this one, by the path the launcher names in {@value #LAUNCHER_JAVA} when it does (one that
   * outlives upgrades; the process's own is the real file, which an upgrade may remove).
   */
  public static Path java() {
    String named = System.getProperty(LAUNCHER_JAVA, "");
    Path current =
        !named.isEmpty() && Files.isExecutable(Path.of(named))
            ? Path.of(named)
            : Path.of(ProcessHandle.current().info().command().orElse("java"));
    if (release(current) >= AOT_RELEASE) {
      return current;
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return current;
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes
          .map(h -> h.resolve("bin/java"))
          .filter(Files::isExecutable)
          .filter(j -> release(j) >= AOT_RELEASE)
          .max(Comparator.comparingInt(HookCache::release))
          .orElse(current);
    } catch (IOException e) {
      return current;
    }
  }

  /**
   * Trains the caches for the jar in {@code lib}: one for the shell policy, which runs on every
   * shell call and should load nothing else, one for the hooks that ask the companion, and one for
   * every other command, above all the companion the session-start hook starts (trained by {@code
   * selftest}, as the companion4j command's own launcher trains its cache). Without them all still
   * run, only slower.
   */
  static void train(Path lib, PrintStream out) throws IOException, InterruptedException {
    Path java = Path.of(Files.readString(lib.resolve("java"), StandardCharsets.UTF_8).trim());
    Path jar = lib.resolve("companion4j.jar");
    if (!Files.exists(jar)) {
      return;
    }
    boolean aot = release(java) >= AOT_RELEASE;
    String suffix = aot ? ".aot" : ".jsa";
    boolean trained =
        train(
                java,
                jar,
                aot,
                lib.resolve("hook-shell-policy" + suffix),
                hook(aot, jar, "shell-policy"))
            & train(java, jar, aot, lib.resolve("hook" + suffix), hook(aot, jar, "status"))
            // The companion the session-start hook starts, trained on a CLI session's work.
            & train(java, jar, aot, lib.resolve("companion" + suffix), companion(jar));
    if (trained && !aot) {
      // The launcher uses a class-data archive only from where it was dumped.
      Files.writeString(lib.resolve(CLASS_PATH), jar + "\n", StandardCharsets.UTF_8);
    }
    out.println(
        trained
            ? "Trained the hooks' and the companion's "
                + (aot ? "AOT caches" : "class-data archives")
                + " with "
                + java
            : "Could not train the hooks' and the companion's class caches with "
                + java
                + "; they run without them, only slower.");
  }

  /**
   * Trains the caches again where a CLI copied the extension staged at {@code stage}: a cache
   * serves only the jar it was trained with, and the copy is another file (a class-data archive
   * checks its path, an AOT cache its modification time).
   */
  static void trainCopy(Path stage, Path copy, PrintStream out)
      throws IOException, InterruptedException {
    Path lib = copy.resolve("lib");
    if (!copy.toRealPath().equals(stage.toRealPath())
        && Files.exists(lib.resolve("companion4j.jar"))) {
      Files.deleteIfExists(lib.resolve(CLASS_PATH));
      train(lib, out);
    }
  }

  /** A hook's run, with the options the launcher runs hooks with. */
  private static List<String> hook(boolean aot, Path jar, String kind) {
    // As the launcher runs hooks, so that the cache holds what they load.
    List<String> run =
        new ArrayList<>(
            List.of(
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
                "-Dslf4j.internal.verbosity=WARN"));
    if (aot) {
      // JDK 17 maps an archive's objects only with G1, its default; JDK 25 with any collector.
      run.add("-XX:+UseSerialGC");
    }
    run.addAll(List.of("-cp", jar.toString(), MAIN, "train", kind));
    return run;
  }

  /** {@code selftest}'s CLI session, with the options the launcher runs the companion with. */
  private static List<String> companion(Path jar) {
    return List.of(
        "-XX:TieredStopAtLevel=1",
        "-XX:CompileThresholdScaling=0.2",
        "-XX:+UseSerialGC",
        "-XX:-UsePerfData",
        "-jar",
        jar.toString(),
        "selftest");
  }

  /** Records {@code cache} from {@code run}: options, class path, main class and arguments. */
  private static boolean train(Path java, Path jar, boolean aot, Path cache, List<String> run)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java.toString()));
    Path classes = cache.resolveSibling(cache.getFileName() + ".classlist");
    // JDK 25 records a cache from a run; JDK 17 dumps a static archive of the classes a run
    // listed: it starts quicker than one recorded at a run's exit, which sits on top of the JDK's.
    command.add(aot ? "-XX:AOTCacheOutput=" + cache : "-XX:DumpLoadedClassList=" + classes);
    command.addAll(quiet(aot));
    command.addAll(run);
    try {
      boolean done = run(command, jar);
      if (done && !aot) {
        done =
            run(
                List.of(
                    java.toString(),
                    "-Xshare:dump",
                    "-XX:SharedClassListFile=" + classes,
                    "-XX:SharedArchiveFile=" + cache,
                    "-cp",
                    jar.toString()),
                jar);
      }
      if (!done || !Files.exists(cache)) {
        Files.deleteIfExists(cache);
        return false;
      }
      return true;
    } finally {
      Files.deleteIfExists(classes);
    }
  }

  private static boolean run(List<String> command, Path jar)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    // As the launcher runs it: the rules come from the extension's copy.
    pb.environment().put("COMPANION4J_EXTENSION", jar.getParent().getParent().toString());
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      return false;
    }
    return true;
  }

  /** Options that keep the cache's notices off the hook's output, which the CLI parses. */
  private static List<String> quiet(boolean aot) {
    return aot
        ? List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:aot=off")
        : List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  }

  /**
   * The feature release of the JDK that {@code java} belongs to, from its {@code release} file; 0
   * when unknown.
   */
  static int release(Path java) {
    try {
      // A link such as /usr/bin/java names no JDK folder; the file it leads to does.
      Path release = java.toRealPath().getParent().getParent().resolve("release");
      Optional<String> line =
          Files.readAllLines(release).stream()
              .filter(l -> l.startsWith("JAVA_VERSION="))
              .findFirst();
      String v = line.map(l -> l.substring("JAVA_VERSION=".length()).replace("\"", "")).orElse("0");
      return Integer.parseInt(v.split("[.+-]")[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
