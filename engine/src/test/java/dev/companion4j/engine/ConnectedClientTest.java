package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ConnectedClientTest {
  private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

  @Test
  void aKnownProgramIsNamedByItsPackageTerminalAndProcess() {
    ConnectedClient qwen =
        new ConnectedClient(
            "s",
            "streamable-http-client",
            "1.0.0",
            NOW,
            new ClientProcess(4242, "Qwen Code", "0.24.4", "pts/3"));
    assertThat(qwen.label()).isEqualTo("Qwen Code 0.24.4 (pts/3, pid 4242)");
  }

  @Test
  void otherwiseByItsHandshakeWithWhatIsKnownOfItsProcess() {
    assertThat(
            new ConnectedClient("s", "my-agent", "2", NOW, new ClientProcess(7, "", "", ""))
                .label())
        .isEqualTo("my-agent 2 (pid 7)");
    assertThat(new ConnectedClient("s", "streamable-http-client", "0.61.0", NOW).label())
        .isEqualTo("streamable-http-client 0.61.0");
  }
}
