package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shell policy over the corpus ({@code shell-corpus.json}) of destructive spellings (refused or
 * asked) and harmless look-alikes (let through). The real CLIs run a subset in ExtensionIT.
 */
class ShellPolicyTest {
  private final ShellPolicy policy = ShellPolicy.bundled();

  static List<String> deny() {
    return ShellCorpus.of("deny");
  }

  static List<String> ask() {
    return ShellCorpus.of("ask");
  }

  static List<String> allow() {
    return ShellCorpus.of("allow");
  }

  @ParameterizedTest
  @MethodSource("deny")
  void refuses(String command) {
    assertThat(policy.check(command))
        .as(command)
        .isNotNull()
        .extracting(ShellPolicy.Rule::decision)
        .isEqualTo(ShellPolicy.Decision.DENY);
  }

  @ParameterizedTest
  @MethodSource("ask")
  void asksFirst(String command) {
    assertThat(policy.check(command))
        .as(command)
        .isNotNull()
        .extracting(ShellPolicy.Rule::decision)
        .isEqualTo(ShellPolicy.Decision.ASK);
  }

  @ParameterizedTest
  @MethodSource("allow")
  void letsThrough(String command) {
    assertThat(policy.check(command)).as(command).isNull();
  }

  @Test
  void aDenyWinsOverAnAsk() {
    assertThat(policy.check("rm -rf build > log.txt").name()).isEqualTo("rm -rf");
    assertThat(policy.check("eval ls; git reset --hard").decision())
        .isEqualTo(ShellPolicy.Decision.DENY);
  }

  @Test
  void aCommandNestedBeyondTheBoundIsAskedNotParsedForever() {
    String nested = "echo " + "$(".repeat(200) + "ls" + ")".repeat(200);
    assertThat(policy.check(nested))
        .isNotNull()
        .extracting(ShellPolicy.Rule::decision)
        .isEqualTo(ShellPolicy.Decision.ASK);
  }
}
