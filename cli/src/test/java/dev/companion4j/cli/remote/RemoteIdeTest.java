package dev.companion4j.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.companion4j.engine.IdeInfo;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What {@code run --remote} leaves for the CLIs: two discovery files and their variables. */
class RemoteIdeTest {
  private static final JsonMapper JSON = JsonMapper.shared();
  private static final IdeInfo IDE = new IdeInfo("companion4j", "Companion4J");
  private static final long PID = 4242;

  /** 65536 + the pid: above every port, so never a companion's port-named file. */
  private static final long NUMBER = 69_778;

  private static final StdioCommand BRIDGE =
      StdioCommand.parse("ssh laptop companion4j bridge --map /workspaces/app=/home/me/app");

  @TempDir Path temp;
  private RemoteIde ide;

  @AfterEach
  void close() {
    if (ide != null) {
      ide.close();
    }
  }

  private Map<String, String> env() {
    return Map.of(
        "HOME",
        temp.resolve("home").toString(),
        "QWEN_HOME",
        qwenHome().toString(),
        "TMPDIR",
        tmp().toString());
  }

  private Path qwenHome() {
    return temp.resolve("qwen-home");
  }

  private Path tmp() {
    return temp.resolve("tmp");
  }

  private Path qwenLock() {
    return qwenHome().resolve("ide/" + NUMBER + ".lock");
  }

  private Path geminiFile() {
    return tmp().resolve("gemini/ide/gemini-ide-server-" + PID + "-" + NUMBER + ".json");
  }

  private Path workspace(String name) throws IOException {
    return Files.createDirectories(temp.resolve(name));
  }

  @Test
  void bothCliFilesCarryTheCommandTheWorkspaceTheIdeAndTheOwnerButNoPortOrToken() throws Exception {
    Path workspace = workspace("workspaces/app");

    ide = RemoteIde.announce(BRIDGE, List.of(workspace), IDE, env(), PID);

    assertThat(ide.files()).containsExactly(qwenLock(), geminiFile());
    JsonNode expected =
        JSON.readTree(
            """
        {"workspacePath": "%s",
         "stdio": {"command": "ssh", "args": ["laptop", "companion4j", "bridge", "--map", "/workspaces/app=/home/me/app"]},
         "ideInfo": {"name": "companion4j", "displayName": "Companion4J"},
         "ppid": 4242}
        """
                .formatted(workspace));
    for (Path file : ide.files()) {
      assertThat(JSON.readTree(Files.readString(file))).as(file.toString()).isEqualTo(expected);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
    }
    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(geminiFile().getParent())))
        .isEqualTo("rwx------");
  }

  @Test
  void severalRootsAreJoinedAsTheCompanionJoinsThem() throws Exception {
    Path a = workspace("a");
    Path b = workspace("b");

    ide = RemoteIde.announce(BRIDGE, List.of(a, b), IDE, env(), PID);

    assertThat(JSON.readTree(Files.readString(qwenLock())).path("workspacePath").asString())
        .isEqualTo(a + File.pathSeparator + b);
  }

  @Test
  void closingRemovesTheFiles() throws Exception {
    ide = RemoteIde.announce(BRIDGE, List.of(workspace("w")), IDE, env(), PID);

    ide.close();

    assertThat(qwenLock()).doesNotExist();
    assertThat(geminiFile()).doesNotExist();
    assertThat(ide.files()).isEmpty();
  }

  @Test
  void aPlaceOthersCanWriteIsSkippedAndTheOtherFileWritten() throws Exception {
    Path geminiDir = Files.createDirectories(geminiFile().getParent());
    Files.setPosixFilePermissions(geminiDir, PosixFilePermissions.fromString("rwxrwxrwx"));

    ide = RemoteIde.announce(BRIDGE, List.of(workspace("w")), IDE, env(), PID);

    assertThat(ide.files()).containsExactly(qwenLock());
    assertThat(geminiDir).isEmptyDirectory();
  }

  @Test
  void whenNoPlaceCanBeTrustedNothingIsAnnounced() throws Exception {
    for (Path shared :
        List.of(Files.createDirectories(qwenHome()), Files.createDirectories(tmp()))) {
      Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    }

    assertThatThrownBy(() -> RemoteIde.announce(BRIDGE, List.of(workspace("w")), IDE, env(), PID))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("no discovery file could be written: ")
        .hasMessageContaining("is writable by group or others and not sticky");
    assertThat(qwenHome()).isEmptyDirectory();
    assertThat(tmp()).isEmptyDirectory();
  }

  @Test
  void aTrustedPlaceThatCannotBeWrittenFailsAndLeavesNothing() throws Exception {
    Files.createDirectories(tmp());
    Files.writeString(
        Files.createDirectories(qwenHome()).resolve("ide"), "a file where the directory belongs");

    assertThatThrownBy(() -> RemoteIde.announce(BRIDGE, List.of(workspace("w")), IDE, env(), PID))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("cannot write " + qwenLock());
    assertThat(tmp()).isEmptyDirectory();
  }

  @Test
  void theVariablesNameTheCommandAndTheWorkspaceAndDropALocalCompanions() throws Exception {
    Path workspace = workspace("workspaces/app");
    ide = RemoteIde.announce(BRIDGE, List.of(workspace), IDE, env(), PID);
    Map<String, String> environment =
        new HashMap<>(
            Map.of(
                "PATH", "/usr/bin",
                "QWEN_CODE_IDE_SERVER_PORT", "40001",
                "GEMINI_CLI_IDE_SERVER_PORT", "40001",
                "GEMINI_CLI_IDE_AUTH_TOKEN", "local-token",
                "GEMINI_CLI_IDE_PID", "1"));

    ide.applyTo(environment);

    String args =
        "[\"laptop\",\"companion4j\",\"bridge\",\"--map\",\"/workspaces/app=/home/me/app\"]";
    assertThat(environment)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "PATH",
                "/usr/bin",
                "QWEN_CODE_IDE_SERVER_STDIO_COMMAND",
                "ssh",
                "QWEN_CODE_IDE_SERVER_STDIO_ARGS",
                args,
                "QWEN_CODE_IDE_WORKSPACE_PATH",
                workspace.toString(),
                "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND",
                "ssh",
                "GEMINI_CLI_IDE_SERVER_STDIO_ARGS",
                args,
                "GEMINI_CLI_IDE_WORKSPACE_PATH",
                workspace.toString(),
                "GEMINI_CLI_IDE_PID",
                "4242"));
  }
}
