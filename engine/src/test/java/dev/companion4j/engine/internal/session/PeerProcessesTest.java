package dev.companion4j.engine.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.ClientProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against a /proc laid out as Linux lays it out, with two CLIs in two terminals. */
class PeerProcessesTest {
  private static final int COMPANION = 0x9C40; // 40000
  private static final String HEADER =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

  @TempDir Path root;
  Path proc;
  Path packages;

  @BeforeEach
  void layOut() throws IOException {
    proc = Files.createDirectories(root.resolve("proc"));
    packages = Files.createDirectories(root.resolve("lib/node_modules"));
    Files.createDirectories(proc.resolve("net"));
    Files.writeString(proc.resolve("net/tcp"), HEADER
        // The companion's listening socket, then its side of Qwen's connection: neither is the client's.
        + "   0: 0100007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1\n"
        + "   1: 0100007F:9C40 0100007F:C001 01 00000000:00000000 00:00000000 00000000  1000        0 222 1\n"
        + "   2: 0100007F:C001 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 333 1\n");
    Files.writeString(proc.resolve("net/tcp6"), HEADER
        + "   0: 0000000000000000FFFF00000100007F:C002 0000000000000000FFFF00000100007F:9C40 01 00000000:00000000"
        + " 00:00000000 00000000  1000        0 444 1\n");
    Path qwen = pkg("@qwen-code/qwen-code", "0.24.4", "cli-entry.js");
    Path gemini = pkg("@google/gemini-cli", "0.61.0", "bundle/gemini.js");
    process(7, 1, "bash", "/dev/pts/5", null);
    process(70, 7, "node\0" + qwen + "\0--debug", "/dev/pts/5", "socket:[333]");
    process(80, 1, "bash", "/dev/pts/9", null);
    // Gemini relaunches itself: the child holds the connection, with pipes for stdio.
    process(81, 80, "node\0" + gemini, "/dev/pts/9", null);
    process(82, 81, "/usr/bin/node\0--max-old-space-size=8192\0" + gemini, "pipe:[9]", "socket:[444]");
  }

  @Test
  void namesTheProgramItsVersionAndTerminal() {
    assertThat(new PeerProcesses(proc).identify(COMPANION, 0xC001))
        .isEqualTo(new ClientProcess(70, "Qwen Code", "0.24.4", "pts/5"));
  }

  @Test
  void findsIpv6SocketsAndTakesTheTerminalOfTheNearestParentThatHasOne() {
    assertThat(new PeerProcesses(proc).identify(COMPANION, 0xC002))
        .isEqualTo(new ClientProcess(82, "Gemini CLI", "0.61.0", "pts/9"));
  }

  @Test
  void aConnectionNobodyHereHoldsIsUnknown() {
    assertThat(new PeerProcesses(proc).identify(COMPANION, 0xC003)).isEqualTo(ClientProcess.UNKNOWN);
    assertThat(new PeerProcesses(root.resolve("no-proc")).identify(COMPANION, 0xC001)).isEqualTo(ClientProcess.UNKNOWN);
  }

  @Test
  void aProgramOutsideAPackageIsLeftUnnamedButItsProcessAndTerminalAreKnown() throws IOException {
    Files.writeString(proc.resolve("70/cmdline"), "/usr/local/bin/my-agent\0--port\0" + "40000");
    assertThat(new PeerProcesses(proc).identify(COMPANION, 0xC001)).isEqualTo(new ClientProcess(70, "", "", "pts/5"));
  }

  @Test
  void theRealProcTableFindsThisProcessesOwnConnection() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/net")), "Linux only");
    try (var server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        var client = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), server.getLocalPort());
        var accepted = server.accept()) {
      ClientProcess me = PeerProcesses.system().identify(server.getLocalPort(), client.getLocalPort());
      assertThat(me.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(me.program()).as("java runs no package").isEmpty();
    }
  }

  private Path pkg(String name, String version, String script) throws IOException {
    Path dir = Files.createDirectories(packages.resolve(name));
    Files.writeString(dir.resolve("package.json"), "{\"name\":\"" + name + "\",\"version\":\"" + version + "\"}");
    Path file = dir.resolve(script);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, "// cli");
  }

  private void process(long pid, long ppid, String cmdline, String stdio, String socket) throws IOException {
    Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
    Files.writeString(dir.resolve("cmdline"), cmdline + "\0");
    Files.writeString(dir.resolve("stat"), pid + " (node (v20)) S " + ppid + " " + pid + " 0 0");
    Files.createSymbolicLink(dir.resolve("cwd"), root);
    Path fd = Files.createDirectories(dir.resolve("fd"));
    for (String n : new String[] {"0", "1", "2"}) {
      Files.createSymbolicLink(fd.resolve(n), Path.of(stdio));
    }
    if (socket != null) {
      Files.createSymbolicLink(fd.resolve("21"), Path.of(socket));
    }
  }
}
