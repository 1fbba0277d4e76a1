package dev.companion4j.testkit;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * One headless run of a real CLI with a fake model and one MCP server, as a program: for tests that
 * cannot load this kit themselves (a booted NetBeans hides plain jars from its tests) and run it as
 * a child process instead. The CLI meets the companion under test through the HOME, QWEN_HOME and
 * TMPDIR this program was started with.
 *
 * <p>Arguments: {@code qwen|gemini WORKSPACE PROMPT MCP_COMMAND...}. Prints one JSON object: {@code
 * {exitCode, toolResults: [the text of each tool result the model received, in order], stderr}}.
 */
public final class HeadlessRun {
  private HeadlessRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: HeadlessRun qwen|gemini WORKSPACE PROMPT MCP_COMMAND...");
      System.exit(2);
    }
    HeadlessCli.Kind kind = HeadlessCli.Kind.valueOf(args[0].toUpperCase(Locale.ROOT));
    Path workspace = Path.of(args[1]);
    CliEnvironment env =
        CliEnvironment.sharing(
            Path.of(System.getenv("HOME")),
            Path.of(System.getenv("QWEN_HOME")),
            Path.of(System.getenv("TMPDIR")),
            workspace);
    try (FakeModelServer model = new FakeModelServer()) {
      HeadlessCli cli = new HeadlessCli(kind, env, model);
      List<String> mcp = List.of(args).subList(3, args.length);
      cli.mcpServer("companion4j", mcp, Map.of("COMPANION4J_WORKSPACE", workspace.toString()));
      HeadlessCli.Result run = cli.prompt(args[2], Map.of());
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("exitCode", run.exitCode());
      out.put("toolResults", cli.toolResults(0));
      out.put("stderr", run.stderr());
      System.out.println(JsonMapper.shared().writeValueAsString(out));
    }
  }
}
