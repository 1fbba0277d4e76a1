package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.CompanionListener;
import dev.companion4j.engine.ConnectedClient;
import dev.companion4j.engine.DiffOutcome;
import dev.companion4j.engine.IdeContext;
import dev.companion4j.engine.PendingDiff;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session {@code selftest} holds, which is also what the launcher's start-up cache is trained
 * on: it does a real session's work against a real companion, and fails loudly when a companion
 * does not answer as one.
 */
class SelfTestCommandTest {
  @TempDir Path temp;

  @Test
  void theSessionConnectsSeveralClisFeedsThemContextAndAnswersDiffsBothWays() throws Exception {
    Path workspace = Files.createDirectories(temp.resolve("workspace"));
    Set<String> clients = ConcurrentHashMap.newKeySet();
    AtomicInteger contexts = new AtomicInteger();
    List<DiffOutcome> outcomes = new CopyOnWriteArrayList<>();
    try (HeadlessCompanion headless = SelfTestCommand.scratchCompanion(temp, workspace)) {
      headless
          .companion()
          .addListener(
              new CompanionListener() {
                @Override
                public void clientConnected(ConnectedClient client) {
                  clients.add(client.id());
                }

                @Override
                public void contextSent(IdeContext context) {
                  contexts.incrementAndGet();
                }

                @Override
                public void diffClosed(PendingDiff diff, DiffOutcome outcome) {
                  outcomes.add(outcome);
                }
              });
      headless.companion().start();

      SelfTestCommand.exercise(
          headless.companion().port(), headless.companion().authToken(), workspace);

      assertThat(clients).hasSizeGreaterThan(1);
      assertThat(contexts).hasValueGreaterThan(1);
      assertThat(outcomes)
          .hasAtLeastOneElementOfType(DiffOutcome.Accepted.class)
          .hasAtLeastOneElementOfType(DiffOutcome.Rejected.class)
          .hasAtLeastOneElementOfType(DiffOutcome.ClosedByClient.class);
      assertThat(headless.companion().clients()).as("every session ended").isEmpty();
    }
  }

  @Test
  void aPortThatIsNoCompanionFailsAtTheHandshakeSayingHow() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread refusing = new Thread(() -> refuseEveryRequest(server), "refusing");
      refusing.setDaemon(true);
      refusing.start();

      assertThatThrownBy(() -> SelfTestCommand.exercise(server.getLocalPort(), "token", temp))
          .isInstanceOf(SelfTestCommand.SessionFailed.class)
          .hasMessage("the MCP handshake failed with HTTP 401");
    }
  }

  /** Answers each request's head with 401, as a server that does not know the token. */
  private static void refuseEveryRequest(ServerSocket server) {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        // A connection of its own each: the session opens some that send nothing yet.
        Thread answering = new Thread(() -> refuse(socket), "refusing-connection");
        answering.setDaemon(true);
        answering.start();
      } catch (IOException closed) {
        // The test is over.
      }
    }
  }

  private static void refuse(Socket socket) {
    try (socket) {
      InputStream in = socket.getInputStream();
      int last = 0;
      int c;
      while ((c = in.read()) != -1) {
        last = last << 8 | c;
        if (last == 0x0D0A0D0A) {
          socket
              .getOutputStream()
              .write(
                  "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"
                      .getBytes(StandardCharsets.US_ASCII));
        }
      }
    } catch (IOException closed) {
      // The session gave up on it.
    }
  }
}
