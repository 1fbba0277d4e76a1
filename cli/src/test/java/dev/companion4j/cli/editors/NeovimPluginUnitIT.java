package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.testkit.TestPeers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Neovim plugin's own unit tests ({@code editors/neovim/test/*_test.lua}: its review, context
 * and framing logic against a stand-in for the attach process), run by Debian's Neovim headless,
 * without any user configuration.
 */
class NeovimPluginUnitIT {
  private static final Path NVIM = Path.of("/usr/bin/nvim");

  @TempDir Path home;

  @Test
  void theLuaUnitTestsPass() throws Exception {
    Path runner = TestPeers.repoRoot().resolve("editors/neovim/test/run.lua");
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    NVIM.toString(),
                    "--headless",
                    "-u",
                    "NONE",
                    "-i",
                    "NONE",
                    "-c",
                    "luafile " + runner))
            .directory(home.toFile())
            .redirectErrorStream(true);
    // A home of its own, so nothing of the user's Neovim (state, swap files) takes part.
    pb.environment().put("HOME", home.toString());
    pb.environment().put("XDG_STATE_HOME", home.resolve(".local/state").toString());
    pb.environment().put("XDG_DATA_HOME", home.resolve(".local/share").toString());
    pb.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    Process nvim = pb.start();
    nvim.getOutputStream().close();
    Path log = home.resolve("nvim.out");
    // Read to its end in the background, so that a hung runner still meets the bound below.
    Thread drain =
        new Thread(
            () -> {
              try {
                Files.write(log, nvim.getInputStream().readAllBytes());
              } catch (java.io.IOException e) {
                // The process ended; its output so far stays in the log.
              }
            },
            "nvim-unit-output");
    drain.start();
    boolean ended = nvim.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      nvim.destroyForcibly();
    }
    drain.join(5000);
    String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    assertThat(ended).as("the runner ended within 2 minutes:\n%s", out).isTrue();
    assertThat(nvim.exitValue()).as(out).isZero();
    assertThat(out).as("the runner ran the tests").containsPattern("[1-9]\\d* tests, 0 failed");
  }
}
