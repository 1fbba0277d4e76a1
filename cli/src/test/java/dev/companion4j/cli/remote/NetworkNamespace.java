package dev.companion4j.cli.remote;

import dev.companion4j.cli.testing.JarCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * A network namespace of the test's own with nothing but loopback, as a container has: no port of
 * the host's is reachable from it. Its commands run through {@code ip netns exec}, which also gives
 * each a mount namespace of its own whose mounts stay invisible to the host.
 */
final class NetworkNamespace implements AutoCloseable {
  private static final AtomicInteger COUNT = new AtomicInteger();

  private final String name;
  private final Path outputDir;

  private NetworkNamespace(String name, Path outputDir) {
    this.name = name;
    this.outputDir = outputDir;
  }

  /**
   * Creates one, or aborts the test where the kernel forbids namespaces (an unprivileged user, a
   * container without CAP_SYS_ADMIN); any other failure fails.
   *
   * @param outputDir where the {@code ip} commands' output is kept
   */
  static NetworkNamespace create(Path outputDir) throws Exception {
    String name = "c4j-remote-" + ProcessHandle.current().pid() + "-" + COUNT.incrementAndGet();
    JarCommand add = exec(outputDir, List.of("ip", "netns", "add", name));
    if (add.exitCode() != 0) {
      if (forbidden(add.stderr())) {
        Assumptions.abort(
            "the kernel forbids network namespaces here: ip netns add: " + add.stderr().strip());
      }
      throw new AssertionError(
          "ip netns add " + name + " failed (" + add.exitCode() + "): " + add.stderr());
    }
    NetworkNamespace ns = new NetworkNamespace(name, outputDir);
    try {
      ns.check(List.of("ip", "-n", name, "link", "set", "lo", "up"));
    } catch (Throwable t) {
      ns.close();
      throw t;
    }
    return ns;
  }

  private static boolean forbidden(String stderr) {
    return stderr.contains("Operation not permitted") || stderr.contains("Permission denied");
  }

  /** {@code command} as run inside this namespace. */
  List<String> inside(List<String> command) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
    full.addAll(command);
    return full;
  }

  private void check(List<String> command) throws Exception {
    JarCommand r = exec(outputDir, command);
    if (r.exitCode() != 0) {
      throw new AssertionError(
          String.join(" ", command) + " failed (" + r.exitCode() + "): " + r.stderr());
    }
  }

  private static JarCommand exec(Path outputDir, List<String> command) throws Exception {
    return JarCommand.run(command, Map.copyOf(System.getenv()), outputDir, outputDir);
  }

  /** Deletes the namespace; processes still in it keep it until they end. */
  @Override
  public void close() throws Exception {
    check(List.of("ip", "netns", "delete", name));
  }
}
