package dev.companion4j.engine.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.ClientProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Lookups asked for together share one pass over the real {@code /proc}. */
class PeerLookupsTest {
  private final Queue<Runnable> passes = new ArrayDeque<>();
  private final PeerLookups lookups = new PeerLookups(PeerProcesses.system(), passes::add);

  @Test
  void connectionsLookedUpTogetherAreAnsweredByOnePass() throws Exception {
    Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/net")), "Linux only");
    try (ServerSocket server = new ServerSocket(0, 3, InetAddress.getLoopbackAddress())) {
      List<Socket> sockets = new ArrayList<>();
      try {
        List<CompletableFuture<ClientProcess>> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
          sockets.add(client);
          sockets.add(server.accept());
          answers.add(lookups.identify(server.getLocalPort(), client.getLocalPort()));
        }
        CompletableFuture<ClientProcess> nobody = lookups.identify(server.getLocalPort(), 1);

        assertThat(passes).hasSize(1);
        passes.remove().run();
        assertThat(answers)
            .allSatisfy(
                a ->
                    assertThat(a)
                        .isCompletedWithValueMatching(
                            p -> p.pid() == ProcessHandle.current().pid(), "this process"));
        assertThat(nobody).isCompletedWithValue(ClientProcess.UNKNOWN);

        CompletableFuture<ClientProcess> later =
            lookups.identify(server.getLocalPort(), sockets.get(0).getLocalPort());
        assertThat(later).as("a lookup after the pass waits for a pass of its own").isNotDone();
        assertThat(passes).hasSize(1);
        passes.remove().run();
        assertThat(later.join().pid()).isEqualTo(ProcessHandle.current().pid());
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }
}
