package dev.companion4j.engine.internal.session;

import dev.companion4j.engine.ClientProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * What naming a CLI by its process adds to its {@code initialize}: {@link PeerProcesses#identify}
 * on this machine's real {@code /proc}, for a connection this process holds (found last or first
 * depending on the order of {@code /proc}), 500 lookups after 50 to warm up.
 *
 * <p>Run with {@code scripts/benchmark.sh peers}.
 */
public final class PeerProcessesBenchmark {
  private static final int WARMUP = 50;
  private static final int RUNS = 500;

  public static void main(String[] args) throws Exception {
    PeerProcesses peers = PeerProcesses.system();
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        Socket accepted = server.accept()) {
      long[] nanos = new long[RUNS];
      for (int i = -WARMUP; i < RUNS; i++) {
        long start = System.nanoTime();
        ClientProcess found = peers.identify(server.getLocalPort(), client.getLocalPort());
        long took = System.nanoTime() - start;
        if (found.pid() != ProcessHandle.current().pid()) {
          throw new IllegalStateException("did not find this process: " + found);
        }
        if (i >= 0) {
          nanos[i] = took;
        }
      }
      Arrays.sort(nanos);
      System.out.printf(
          "| processes | open files of this user | median | p95 |%n|---|---|---|---|%n");
      System.out.printf(
          "| %d | %d | %.2f ms | %.2f ms |%n",
          processes(), openFiles(), nanos[RUNS / 2] / 1e6, nanos[RUNS * 95 / 100] / 1e6);
    }
  }

  private static long processes() throws IOException {
    try (DirectoryStream<Path> all =
        Files.newDirectoryStream(
            Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
      long n = 0;
      for (Path ignored : all) {
        n++;
      }
      return n;
    }
  }

  private static long openFiles() throws IOException {
    long n = 0;
    try (DirectoryStream<Path> all =
        Files.newDirectoryStream(
            Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path process : all) {
        try (var fds = Files.list(process.resolve("fd"))) {
          n += fds.count();
        } catch (IOException e) {
          // Another user's process, or one that ended.
        }
      }
    }
    return n;
  }
}
