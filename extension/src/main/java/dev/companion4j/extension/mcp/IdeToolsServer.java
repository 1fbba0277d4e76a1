package dev.companion4j.extension.mcp;

import dev.companion4j.extension.ide.IdeLink;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's MCP server on stdio, started by the CLI: IDE tools beyond the IDE-mode contract,
 * answered by the companion that serves the CLI's workspace. Every tool call looks the companion
 * up again, so an editor opened or closed mid-session is seen.
 */
public final class IdeToolsServer {
  /** The tools' names, as the extension's text names them before the runtime's prefix. */
  public static final List<String> TOOL_NAMES =
      List.of("ide_status", "get_diagnostics", "get_open_editors", "get_selection", "open_file", "get_pending_diffs");

  private static final JsonMapper JSON = JsonMapper.shared();
  private static final Map<String, Object> NO_ARGUMENTS = Map.of("type", "object", "properties", Map.of());

  private final IdeTools ide;
  private final String version;

  public IdeToolsServer(IdeLink link, Path workspace, String version) {
    this.ide = new IdeTools(link, workspace);
    this.version = version;
  }

  /** Serves on this process's stdin and stdout until the CLI closes stdin. */
  public void serveStdio() throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    StdioServerTransportProvider transport = new StdioServerTransportProvider(new JacksonMcpJsonMapper(JSON));
    McpSyncServer server = McpServer.sync(transport)
        .serverInfo("companion4j", version)
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .tools(tools())
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(closed::countDown, "companion4j-mcp-exit"));
    // A CLI that is killed cannot stop its servers: outlive it by nothing.
    ProcessHandle.current().parent().ifPresent(cli -> cli.onExit().thenRun(closed::countDown));
    try {
      closed.await();
    } finally {
      server.closeGracefully();
    }
  }

  /**
   * The tools, in {@link #TOOL_NAMES}' order, for the stdio server and for tests. Their handlers
   * run on the SDK's thread that reads stdin, one call at a time; each asks the companion within
   * a few seconds at most.
   */
  public List<SyncToolSpecification> tools() {
    return List.of(
        tool("ide_status",
            "Which editor serves this workspace through Companion4J: its workspace roots, the active file with "
                + "cursor and selection, the other open files, what the editor offers, the connected CLIs and the "
                + "diffs waiting for the user's review.",
            NO_ARGUMENTS, args -> ide.status()),
        tool("get_diagnostics",
            "The errors and warnings the user's editor shows (compiler, linter) for one file, or for every open "
                + "file when no path is given; most severe first, with line and column. Use it before fixing "
                + "\"the errors\" the user means, and after an edit to check it compiles in the editor.",
            schema(Map.of("path", Map.of("type", "string",
                "description", "The file, absolute or relative to the workspace; leave out for all open files"))),
            args -> ide.diagnostics(text(args, "path"))),
        tool("get_open_editors",
            "The files open in the user's editor, newest first: which is active, its cursor and selection, and which "
                + "have changes not saved yet (their text on disk is older than what the user sees).",
            NO_ARGUMENTS, args -> ide.openEditors()),
        tool("get_selection",
            "The text selected in the user's active editor, with the file and the selection's lines and columns.",
            NO_ARGUMENTS, args -> ide.selection()),
        tool("open_file",
            "Shows the user a place in a file in their editor: opens it and puts the cursor at the line and column. "
                + "Only files inside the workspace.",
            schema(Map.of(
                "path", Map.of("type", "string", "description", "The file, absolute or relative to the workspace"),
                "line", Map.of("type", "integer", "minimum", 1, "description", "1-based line; leave out to just open the file"),
                "column", Map.of("type", "integer", "minimum", 1, "description", "1-based column on that line")),
                "path"),
            args -> ide.open(text(args, "path"), number(args, "line"), number(args, "column"))),
        tool("get_pending_diffs",
            "The edits proposed to the user's editor that wait for their review (accept, edit or reject), with the "
                + "file, the proposing CLI and since when.",
            NO_ARGUMENTS, args -> ide.pendingDiffs()));
  }

  private static SyncToolSpecification tool(
      String name, String description, Map<String, Object> schema, Function<Map<String, Object>, CallToolResult> handler) {
    return SyncToolSpecification.builder()
        .tool(McpSchema.Tool.builder().name(name).description(description).inputSchema(schema).build())
        .callHandler((exchange, request) -> handler.apply(request.arguments() == null ? Map.of() : request.arguments()))
        .build();
  }

  private static Map<String, Object> schema(Map<String, Object> properties, String... required) {
    return required.length == 0
        ? Map.of("type", "object", "properties", properties)
        : Map.of("type", "object", "properties", properties, "required", List.of(required));
  }

  private static String text(Map<String, Object> args, String name) {
    return args.get(name) instanceof String s && !s.isBlank() ? s : null;
  }

  /** A whole number the model sent, also as a numeric string; 0 when absent; -1 when unusable. */
  private static int number(Map<String, Object> args, String name) {
    Object value = args.get(name);
    if (value == null) {
      return 0;
    }
    try {
      long n = value instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())
          ? num.longValue() : Long.parseLong(value.toString().trim());
      return n >= 1 && n <= Integer.MAX_VALUE ? (int) n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
