package dev.companion4j.cli.chat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AcpChatTest {
  @Test
  void aSessionTitleCannotSteerTheTerminal() {
    String shown = AcpChat.shown("say\u001b]0;owned\u0007hello\r\n\u009b2J" + "x".repeat(200));

    assertThat(shown).doesNotContainPattern("\\p{Cc}").startsWith("say ]0;owned hello 2J");
    assertThat(shown).hasSize(81).endsWith("\u2026");
  }
}
