package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatusCommandTest {
  @Test
  void eachColumnStartsWhereItsHeaderStartsHoweverLongTheValues() {
    List<String> lines =
        StatusCommand.table(
            List.of(
                List.of("PORT", "STATE", "WORKSPACE", "CLIS"),
                List.of(
                    "41233",
                    "alive",
                    "/home/me/src/a-project-with-a-name-longer-than-thirty-characters",
                    "Qwen Code 0.24.4 (pts/3, pid 4242)"),
                List.of("5", "stale", "/w", "-")));

    assertThat(lines)
        .containsExactly(
            "PORT  STATE WORKSPACE                                                        CLIS",
            "41233 alive /home/me/src/a-project-with-a-name-longer-than-thirty-characters Qwen Code 0.24.4 (pts/3, pid 4242)",
            "5     stale /w                                                               -");
  }
}
