package dev.companion4j.cli.acp;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A real agent on the {@code PATH} as a user installed it, in a home of its own with default
 * settings, against the fake model; {@link #serve} starts {@code companion4j serve --agent} for it.
 */
final class ServedAgent implements AutoCloseable {
  final Kind kind;
  final FakeModelServer model;
  final HeadlessCli cli;
  private CompanionProcess companion;

  ServedAgent(Path dir, Kind kind) throws Exception {
    this.kind = kind;
    this.model = new FakeModelServer();
    this.cli = new HeadlessCli(kind, CliEnvironment.in(dir), model);
    if (kind == Kind.GEMINI) {
      // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
      cli.trustTheWorkspace();
    }
  }

  Path workspace() {
    return cli.env.workspace();
  }

  /** {@code serve --agent qwen|gemini} in the agent's workspace, with {@code more} arguments. */
  CompanionProcess serve(String... more) throws Exception {
    Path bin = Files.createDirectories(workspace().resolveSibling("bin"));
    kind.installAsCommand(bin);
    Map<String, String> env = new LinkedHashMap<>(cli.variables());
    env.put("PATH", bin + ":" + env.get("PATH"));
    List<String> args = new ArrayList<>(List.of("--agent", kind == Kind.QWEN ? "qwen" : "gemini"));
    args.addAll(List.of(more));
    companion = CompanionProcess.start(cli.env, env, args.toArray(String[]::new));
    return companion;
  }

  /**
   * The file a write goes to: a new one for Qwen Code, an existing one for Gemini CLI 0.61, which
   * cannot create one through the client (see docs/chat-acp.md).
   */
  Path target(String name) throws Exception {
    Path file = workspace().resolve(name);
    return kind == Kind.GEMINI ? Files.writeString(file, "before\n") : file;
  }

  /** Answers each permission request in the page's {@code state} as a user allowing it once. */
  static void allowOnce(CompanionProcess companion, JsonNode state) {
    for (JsonNode p : state.path("conversation").path("permissions")) {
      for (JsonNode o : p.path("options")) {
        if (o.path("kind").asString().equals("allow_once")) {
          companion.post(
              "/chat/acp/permissions/" + p.path("requestId").asString(),
              Map.of("optionId", o.path("optionId").asString()));
        }
      }
    }
  }

  /** The javac error {@link #reportJavacError} has the editor report. */
  static final String JAVAC_ERROR = "incompatible types: String cannot be converted to int";

  /**
   * Has an editor report one javac error, {@link #JAVAC_ERROR} at line 3, column 13, in a new
   * {@code Broken.java} in {@code workspace}, through {@code companion}'s editor API.
   *
   * @return the file
   */
  static Path reportJavacError(CompanionProcess companion, Path workspace) throws Exception {
    Path broken = Files.writeString(workspace.resolve("Broken.java"), "class Broken {}\n");
    companion.event(
        Map.of(
            "type",
            "diagnostics",
            "path",
            broken.toString(),
            "diagnostics",
            List.of(
                Map.of(
                    "range",
                    Map.of("startLine", 3, "startCharacter", 13, "endLine", 3, "endCharacter", 19),
                    "severity",
                    "error",
                    "message",
                    JAVAC_ERROR,
                    "source",
                    "javac"))));
    return broken;
  }

  static String contentOf(Path file) throws Exception {
    return Files.exists(file) ? Files.readString(file) : "(none)";
  }

  @Override
  public void close() throws Exception {
    try (FakeModelServer m = model) {
      m.openGate();
      if (companion != null) {
        companion.close();
      }
    }
  }
}
