package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Naming the CLI that started the bridge by the package of the script it runs. */
class CliProgramTest {
  @TempDir Path temp;

  private Path script(String pkg, String name, String version, String script) throws IOException {
    Path dir = Files.createDirectories(temp.resolve("lib/node_modules").resolve(pkg));
    Files.writeString(dir.resolve("package.json"), "{\"name\":\"" + name + "\",\"version\":\"" + version + "\"}");
    Path file = dir.resolve(script);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/usr/bin/env node\n");
    return file;
  }

  @Test
  void theCommandsNpmInstallsAreLinksToScriptsOfTheirPackages() throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path qwen = Files.createSymbolicLink(bin.resolve("qwen"), script("qwen", "@qwen-code/qwen-code", "0.24.4", "cli.js"));
    Path gemini = Files.createSymbolicLink(bin.resolve("gemini"), script("gemini", "@google/gemini-cli", "0.61.0", "bundle/gemini.js"));

    assertThat(CliProgram.of(List.of("--no-warnings", qwen.toString(), "--yolo"), temp)).hasValue(new CliProgram("Qwen Code", "0.24.4"));
    assertThat(CliProgram.of(List.of("bin/gemini"), temp)).hasValue(new CliProgram("Gemini CLI", "0.61.0"));
  }

  @Test
  void anyOtherPackageIsNamedByItsOwnName() throws Exception {
    Path driver = script("peers", "companion4j-test-peers", "", "driver.mjs");

    assertThat(CliProgram.of(List.of(driver.toString(), "--cli", "qwen"), temp)).hasValue(new CliProgram("companion4j-test-peers", ""));
  }

  @Test
  void aProgramThatRunsNoScriptOfAPackageIsNotNamed() throws Exception {
    Path jar = Files.writeString(temp.resolve("companion4j.jar"), "");

    assertThat(CliProgram.of(List.of("-jar", jar.toString(), "bridge"), temp)).isEmpty();
    assertThat(CliProgram.of(List.of(), temp)).isEmpty();
  }
}
