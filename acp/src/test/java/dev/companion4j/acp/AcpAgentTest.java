package dev.companion4j.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AcpAgentTest {
  private static final Path CWD = Path.of("/work/project");

  @Test
  void theTwoClisRunInAcpModeAndAnythingElseIsACommandLine() {
    assertThat(AcpAgent.named("qwen", CWD).command()).containsExactly("qwen", "--acp");
    assertThat(AcpAgent.named("gemini", CWD).command()).containsExactly("gemini", "--acp");
    assertThat(AcpAgent.named(" my-agent  --acp --fast ", CWD).command())
        .containsExactly("my-agent", "--acp", "--fast");
    assertThat(AcpAgent.named("gemini", CWD).interactiveCommand()).isEqualTo("gemini");
  }

  @Test
  void anEmptyCommandIsRefused() {
    assertThatThrownBy(() -> AcpAgent.named("  ", CWD))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("agent command");
  }

  @Test
  void theEnvironmentNeverShowsInToString() {
    AcpAgent agent =
        new AcpAgent(List.of("qwen", "--acp"), CWD, Map.of("OPENAI_API_KEY", "sk-secret"));

    assertThat(agent.toString()).contains("qwen --acp").doesNotContain("sk-secret");
  }
}
