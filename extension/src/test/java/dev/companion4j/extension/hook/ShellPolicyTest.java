package dev.companion4j.extension.hook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShellPolicyTest {
  private final ShellPolicy policy = ShellPolicy.bundled();

  @ParameterizedTest
  @ValueSource(strings = {
    "rm -rf somedir", "rm -fr somedir", "sudo rm -rf /", "sudo rm -fr build", "cd x && rm -Rf y", "rm -rfv dist",
    "git reset --hard", "git reset --hard HEAD~1", "git reset -q --hard",
    "git checkout -- src/A.java", "git checkout HEAD -- .",
    "git clean -fd", "git clean -df", "git clean -xfd", "git clean -xdf",
    "cat <<EOF > a.txt", "python - <<'PY'"
  })
  void refuses(String command) {
    assertThat(policy.check(command)).isNotNull().extracting(ShellPolicy.Rule::decision).isEqualTo(ShellPolicy.Decision.DENY);
  }

  @ParameterizedTest
  @ValueSource(strings = {"echo hi | tee out.log", "ls > files.txt", "date >> log.txt", "echo x>y"})
  void asksFirst(String command) {
    assertThat(policy.check(command)).isNotNull().extracting(ShellPolicy.Rule::decision).isEqualTo(ShellPolicy.Decision.ASK);
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "git status", "rm file.txt", "rm -r build", "git checkout main", "git checkout -b feature", "git reset HEAD a.txt",
    "git clean -n", "ls 2>/dev/null", "make 2>&1", "grep -r 'a' src", "cat <<<\"here string\"", "echo '->' ok"
  })
  void letsThrough(String command) {
    assertThat(policy.check(command)).isNull();
  }

  @org.junit.jupiter.api.Test
  void aDenyWinsOverAnAsk() {
    assertThat(policy.check("rm -rf build > log.txt").name()).isEqualTo("rm -rf");
  }
}
