package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.daemon.conversation.DaemonSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;

/** Where {@code serve} finds its chat's daemon, and how the daemon's token may reach it. */
class DaemonOptionsTest {
  @TempDir Path temp;

  @Command(name = "serve")
  static final class Serve {
    @Mixin DaemonOptions daemon;
  }

  @Test
  void aTokenFileOthersCanReadIsRefusedWithTheChmodThatFixesIt() throws Exception {
    Path token = Files.writeString(temp.resolve("token"), "secret-daemon-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(
            () ->
                source(
                    Map.of(),
                    "--daemon",
                    "http://127.0.0.1:4170",
                    "--daemon-token-file",
                    token.toString()))
        .isInstanceOf(ParameterException.class)
        .hasMessage(
            "--daemon-token-file "
                + token
                + " can be read by others; make it owner-only (chmod 600)")
        .hasMessageNotContaining("secret-daemon-token");
  }

  @Test
  void anOwnerOnlyTokenFileGivesADaemonToChatWith() throws Exception {
    Path token = Files.writeString(temp.resolve("token"), "secret-daemon-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

    Optional<DaemonSource> source =
        source(
            Map.of(), "--daemon", "http://127.0.0.1:4170", "--daemon-token-file", token.toString());

    assertThat(source).isPresent();
    source.get().close();
  }

  @Test
  void withoutDaemonOrVariableThereIsNoChat() {
    assertThat(source(Map.of())).isEmpty();
    assertThat(source(Map.of("QWEN_IDE_DAEMON_URL", "http://127.0.0.1:4170"))).isPresent();
  }

  @Test
  void misplacedOptionsSayWhatIsWrong() throws Exception {
    Path token = Files.writeString(temp.resolve("token"), "t");
    assertThatThrownBy(() -> source(Map.of(), "--daemon-token-file", token.toString()))
        .hasMessage("--daemon-token-file needs --daemon (or $QWEN_IDE_DAEMON_URL)");
    assertThatThrownBy(
            () -> source(Map.of(), "--daemon", "spawn", "--daemon-token-file", token.toString()))
        .hasMessage(
            "--daemon-token-file is for a daemon that runs already; a spawned one gets a fresh token");
    assertThatThrownBy(() -> source(Map.of(), "--daemon", "ftp://127.0.0.1:4170"))
        .isInstanceOf(ParameterException.class)
        .hasMessageStartingWith("--daemon: ");
  }

  private Optional<DaemonSource> source(Map<String, String> env, String... args) {
    Serve serve = new Serve();
    CommandLine line = new CommandLine(serve);
    line.parseArgs(args);
    return serve.daemon.source(line.getCommandSpec(), env, temp);
  }
}
