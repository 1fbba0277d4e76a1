package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** A command line that names one subcommand gets only that one, and it says the same as ever. */
class MainTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "serve",
        "run",
        "open",
        "attach",
        "status",
        "chat",
        "extension",
        "mcp",
        "bridge",
        "selftest"
      })
  void aNamedSubcommandAloneHasTheHelpItHasAmongAllTheOthers(String name) {
    Map<String, CommandLine> alone = Main.commandLine(name).getSubcommands();
    CommandLine all = Main.commandLine().getSubcommands().get(name);

    assertThat(alone).containsOnlyKeys(name);
    assertThat(alone.get(name).getUsageMessage()).isEqualTo(all.getUsageMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"serve", "run"})
  void aStartingCommandAloneRefusesABadOptionInTheSameWords(String name) {
    String alone = errorOf(Main.commandLine(name, "--no-such-option"), name);

    assertThat(alone)
        .contains("Usage: companion4j " + name + " ")
        .isEqualTo(errorOf(Main.commandLine(), name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"help", "--help", "-V", "serv"})
  void aCommandLineNamingNoSubcommandHasThemAll(String first) {
    assertThat(Main.commandLine(first).getSubcommands())
        .containsOnlyKeys(Main.commandLine().getSubcommands().keySet())
        .hasSize(11);
  }

  private static String errorOf(CommandLine commandLine, String name) {
    StringWriter err = new StringWriter();
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.execute(name, "--no-such-option");
    return err.toString();
  }
}
