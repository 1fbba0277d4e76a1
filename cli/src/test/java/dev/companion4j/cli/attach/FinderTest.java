package dev.companion4j.cli.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.discovery.CompanionAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which companion attach may follow, as the environment names it, and where its token may show. */
class FinderTest {
  private static final String TOKEN = "token-0123456789abcdef0123456789abcdef";

  @TempDir Path temp;

  @Test
  void theVariablesNameACompanionOnlyTogetherAndOnlyOnLoopback() {
    assertThatThrownBy(() -> Finder.of(env(null, TOKEN), temp))
        .hasMessageContaining("only " + Finder.TOKEN_VARIABLE + " is set")
        .hasMessageNotContaining(TOKEN);
    assertThatThrownBy(() -> Finder.of(env("http://127.0.0.1:41233/editor", null), temp))
        .hasMessageContaining("only " + Finder.API_VARIABLE + " is set");
    for (String api :
        new String[] {
          "http://example.com:41233/editor",
          "https://127.0.0.1:41233/editor",
          "http://127.0.0.1:0/editor",
          "http://127.0.0.1:70000/editor",
          "http://127.0.0.1:41233/mcp",
          "http://127.0.0.1.evil:1/editor"
        }) {
      assertThatThrownBy(() -> Finder.of(env(api, TOKEN), temp))
          .as(api)
          .hasMessageContaining("must be a loopback editor API")
          .hasMessageNotContaining(TOKEN);
    }
    Finder.of(env("http://127.0.0.1:41233/editor/", TOKEN), temp);
    Finder.of(env("http://localhost:41233/editor", TOKEN), temp);
  }

  @Test
  void theTokenIsInNoString() {
    assertThat(new Target(41233, TOKEN, false, Optional.empty()).toString())
        .contains("41233")
        .doesNotContain(TOKEN);
  }

  @Test
  void aFoundCompanionWhoseProcessEndedIsGoneSoNoRequestFollowsItsPort() throws Exception {
    Process owner = new ProcessBuilder("sleep", "60").start();
    try {
      Target target = Target.found(address(Optional.of(owner.pid())));
      assertThat(target.gone()).isFalse();
      owner.destroyForcibly();
      assertThat(owner.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(target.gone()).isTrue();
    } finally {
      owner.destroyForcibly();
    }
    assertThat(Target.found(address(Optional.empty())).gone())
        .as("a file that names no process: only the proof vouches for it")
        .isFalse();
    assertThat(new Target(41233, TOKEN, true, Optional.empty()).gone()).isFalse();
  }

  private CompanionAddress address(Optional<Long> pid) {
    return new CompanionAddress(41233, TOKEN, temp.toString(), "", temp.resolve("41233.lock"), pid);
  }

  @Test
  void aNamedCompanionThatDoesNotAnswerIsNoCompanionAndSaysWhy() {
    // Port 1 on loopback: nothing listens there for an unprivileged test.
    Finder.Search search = Finder.of(env("http://127.0.0.1:1/editor", TOKEN), temp).find();
    assertThat(search.target()).isEmpty();
    assertThat(search.reason()).contains("port 1").contains("does not prove").doesNotContain(TOKEN);
  }

  private Map<String, String> env(String api, String token) {
    Map<String, String> env =
        new HashMap<>(Map.of("HOME", temp.toString(), "TMPDIR", temp.toString()));
    if (api != null) {
      env.put(Finder.API_VARIABLE, api);
    }
    if (token != null) {
      env.put(Finder.TOKEN_VARIABLE, token);
    }
    return env;
  }
}
