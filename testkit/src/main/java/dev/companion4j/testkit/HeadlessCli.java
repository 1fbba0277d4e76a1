package dev.companion4j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real Qwen Code or Gemini CLI in a private home, pointed at a fake model on loopback, run the
 * way a user runs it headless: one prompt, tools approved.
 */
public final class HeadlessCli {
  private static final JsonMapper JSON = JsonMapper.shared();

  /** Only stops a hung CLI from hanging the build; nothing here measures speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(240);

  public enum Kind {
    QWEN("qwen", "@qwen-code/qwen-code/cli-entry.js"),
    GEMINI("gemini", "@google/gemini-cli/bundle/gemini.js");

    public final String runtime;
    private final String bin;

    Kind(String runtime, String bin) {
      this.runtime = runtime;
      this.bin = bin;
    }

    public Path executable() {
      return TestPeers.dir().resolve("node_modules").resolve(bin);
    }

    /**
     * The fake model's directive for calling {@code tool} of the extension's IDE tools server with
     * {@code arguments} (a JSON object), as this CLI names the tool.
     */
    public String ideToolCall(String tool, String arguments) {
      return this == QWEN
          ? "[[call tool_call {\"name\":\"mcp__companion4j__"
              + tool
              + "\",\"arguments\":"
              + arguments
              + "}]]"
          : "[[call mcp_companion4j_" + tool + " " + arguments + "]]";
    }

    /**
     * What {@code npm install -g} gives a user: the pinned CLI as the command {@code qwen} or
     * {@code gemini} in {@code dir}, to put on a PATH.
     */
    public Path installAsCommand(Path dir) throws IOException {
      Path file = dir.resolve(runtime);
      Files.writeString(file, "#!/bin/sh\nexec node '" + executable() + "' \"$@\"\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
      return file;
    }
  }

  public record Result(int exitCode, String stdout, String stderr) {}

  public final Kind kind;
  public final CliEnvironment env;
  public final FakeModelServer model;

  /** Where the extension keeps its state in these tests ({@code COMPANION4J_STATE}). */
  public final Path state;

  public HeadlessCli(Kind kind, CliEnvironment env, FakeModelServer model) throws IOException {
    this.kind = kind;
    this.env = env;
    this.model = model;
    this.state = env.home().getParent().resolve("state");
    Files.createDirectories(state);
    writeSettings("");
  }

  /**
   * Configures an MCP server in the CLI's user settings, as a user would without the extension.
   *
   * @param command the server's command and arguments
   */
  public void mcpServer(String name, List<String> command, Map<String, String> environment)
      throws IOException {
    Map<String, Object> server = new LinkedHashMap<>();
    server.put("command", command.get(0));
    server.put("args", command.subList(1, command.size()));
    server.put("env", environment);
    server.put("trust", true);
    writeSettings(",\"mcpServers\":" + JSON.writeValueAsString(Map.of(name, server)));
  }

  private void writeSettings(String more) throws IOException {
    if (kind == Kind.QWEN) {
      Files.createDirectories(env.qwenHome());
      Files.writeString(
          env.qwenHome().resolve("settings.json"),
          "{\"security\":{\"auth\":{\"selectedType\":\"openai\"}},\"model\":{\"name\":\"fake-model\"}"
              + more
              + "}");
    } else {
      Files.createDirectories(env.home().resolve(".gemini"));
      Files.writeString(
          env.home().resolve(".gemini/settings.json"),
          "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}" + more + "}");
    }
  }

  /** The environment of the CLI, of the companion4j commands and of the companions they start. */
  public Map<String, String> variables() {
    Map<String, String> vars = new LinkedHashMap<>(env.variables());
    vars.put("COMPANION4J_STATE", state.toString());
    vars.put("GEMINI_CLI_HOME", env.home().toString());
    vars.put("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
    if (kind == Kind.QWEN) {
      vars.put("OPENAI_API_KEY", "sk-fake");
      vars.put("OPENAI_BASE_URL", model.baseUrl());
      vars.put("OPENAI_MODEL", "fake-model");
    } else {
      vars.put("GEMINI_API_KEY", "fake");
      vars.put("GOOGLE_GEMINI_BASE_URL", model.geminiBaseUrl());
    }
    return vars;
  }

  /**
   * {@code companion4j extension install --cli <this> [args]}.
   *
   * @param companion4j the command that runs companion4j, e.g. {@code java -jar companion4j.jar}
   */
  public Result install(List<String> companion4j, String... args) throws Exception {
    List<String> command = new ArrayList<>(companion4j);
    command.addAll(
        List.of(
            "extension",
            "install",
            "--cli",
            kind.runtime,
            "--cli-command",
            kind.executable().toString()));
    command.addAll(List.of(args));
    return run(command, Map.of());
  }

  /** One headless turn with every tool approved. */
  public Result prompt(String prompt, Map<String, String> extraEnv) throws Exception {
    if (kind == Kind.GEMINI) {
      trustTheWorkspace();
    }
    return run(List.of("node", kind.executable().toString(), "-p", prompt, "--yolo"), extraEnv);
  }

  /**
   * Headless, Gemini CLI 0.61 refuses a prompt in a folder that is not trusted ("not running in a
   * trusted directory") and lists the MCP servers there as disabled: the workspace is trusted as
   * the CLI's own trust question records it, beside whatever that file already holds.
   */
  public void trustTheWorkspace() throws IOException {
    Path file = env.home().resolve(".gemini/trustedFolders.json");
    ObjectNode trusted =
        Files.exists(file) ? (ObjectNode) JSON.readTree(file.toFile()) : JSON.createObjectNode();
    trusted.put(env.workspace().toString(), "TRUST_FOLDER");
    Files.writeString(file, JSON.writeValueAsString(trusted));
  }

  /**
   * Returns once the clock is past the minute of {@code begun}. Gemini CLI 0.61 names a session's
   * record after the minute the session began, and loading it opens a record under that name again:
   * in the same minute that empties the loaded session ("No previous sessions found").
   */
  public static void awaitTheMinuteAfter(Instant begun) throws InterruptedException {
    Duration left =
        Duration.between(Instant.now(), begun.truncatedTo(ChronoUnit.MINUTES).plusSeconds(61));
    if (!left.isNegative()) {
      // The clock is the event awaited; nothing else announces the minute's end.
      Thread.sleep(left.toMillis());
    }
  }

  /**
   * The texts of the tool results sent back to the model since its request number {@code before},
   * in order; only requests that declare tools count, which leaves out the CLIs' side requests.
   */
  public List<String> toolResults(int before) {
    List<FakeModelServer.Request> all = model.requests();
    return all.subList(before, all.size()).stream()
        .filter(r -> !r.body().path("tools").isEmpty() && r.lastRole().equals("tool"))
        .map(FakeModelServer.Request::lastText)
        .toList();
  }

  /** A subcommand of the CLI, such as {@code extensions list}. */
  public Result cli(String... args) throws Exception {
    if (kind == Kind.GEMINI) {
      trustTheWorkspace();
    }
    List<String> command = new ArrayList<>(List.of("node", kind.executable().toString()));
    command.addAll(List.of(args));
    return run(command, Map.of());
  }

  private Result run(List<String> command, Map<String, String> extraEnv) throws Exception {
    Path out = Files.createTempFile(state, "stdout", ".txt");
    Path err = Files.createTempFile(state, "stderr", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(env.workspace().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().clear();
    pb.environment().putAll(variables());
    pb.environment().putAll(extraEnv);
    Process p = pb.start();
    if (!p.waitFor(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", command) + " did not return; stderr:\n" + Files.readString(err));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
