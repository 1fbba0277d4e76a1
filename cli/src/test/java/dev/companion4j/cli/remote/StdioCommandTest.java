package dev.companion4j.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StdioCommandTest {

  @Test
  void splitsAtRunsOfWhitespaceAndKeepsEverythingElse() {
    StdioCommand c =
        StdioCommand.parse(
            "  ssh\tlaptop   companion4j bridge --map /mnt/c/Users/me/app=C:\\Users\\me\\app \n");

    assertThat(c.command()).isEqualTo("ssh");
    assertThat(c.args())
        .containsExactly(
            "laptop", "companion4j", "bridge", "--map", "/mnt/c/Users/me/app=C:\\Users\\me\\app");
  }

  @Test
  void noShellReadsIt() {
    StdioCommand c =
        StdioCommand.parse("docker exec -i app companion4j bridge --map '/my app'=$HOME");

    assertThat(c.args())
        .containsExactly(
            "exec", "-i", "app", "companion4j", "bridge", "--map", "'/my", "app'=$HOME");
  }

  @Test
  void aSingleWordIsACommandWithoutArguments() {
    assertThat(StdioCommand.parse("/opt/reach-laptop.sh"))
        .isEqualTo(new StdioCommand("/opt/reach-laptop.sh", java.util.List.of()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t \n"})
  void aLineWithoutWordsIsRefused(String line) {
    assertThatThrownBy(() -> StdioCommand.parse(line))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("is empty; give the command that reaches the companion");
  }
}
