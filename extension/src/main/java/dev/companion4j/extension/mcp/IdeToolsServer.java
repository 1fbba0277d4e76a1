package dev.companion4j.extension.mcp;

import dev.companion4j.extension.ide.IdeLink;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's MCP server on stdio, started by the CLI: IDE tools beyond the IDE-mode contract,
 * answered by the companion that serves the CLI's workspace. Every tool call looks the companion up
 * again, so an editor opened or closed mid-session is seen.
 */
public final class IdeToolsServer {
  /** The tools' names, as the extension's text names them before the runtime's prefix. */
  public static final List<String> TOOL_NAMES =
      List.of(
          "ide_status",
          "get_diagnostics",
          "get_open_editors",
          "get_selection",
          "open_file",
          "get_pending_diffs",
          "find_definition",
          "find_references",
          "document_symbols",
          "workspace_symbols",
          "call_hierarchy",
          "type_hierarchy",
          "rename_symbol");

  private static final Logger log = LoggerFactory.getLogger(IdeToolsServer.class);
  private static final JsonMapper JSON = JsonMapper.shared();
  private static final Map<String, Object> NO_ARGUMENTS =
      Map.of("type", "object", "properties", Map.of());

  private final IdeTools ide;
  private final CodeTools code;
  private final String version;

  public IdeToolsServer(IdeLink link, Path workspace, String version) {
    this(link, () -> workspace, version);
  }

  /**
   * @param workspace asked at each call: what relative paths are resolved against
   */
  IdeToolsServer(IdeLink link, Supplier<Path> workspace, String version) {
    this.ide = new IdeTools(link, workspace);
    this.code = new CodeTools(link, workspace, Clock.systemUTC());
    this.version = version;
  }

  String version() {
    return version;
  }

  /** Serves on this process's stdin and stdout until the CLI closes stdin or ends. */
  public void serveStdio() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "companion4j-mcp-exit"));
    // A CLI that is killed cannot stop its servers: outlive it by nothing.
    ProcessHandle.current().parent().ifPresent(cli -> cli.onExit().thenRun(stop::countDown));
    serve(System.in, System.out, stop);
  }

  /**
   * Serves on {@code in} and {@code out} until {@code in} ends or {@code stop} is counted down. A
   * line the SDK's transport cannot take (which would end its reading) is answered with a JSON-RPC
   * error instead ({@link StdioGuard}).
   */
  void serve(InputStream in, OutputStream out, CountDownLatch stop) throws InterruptedException {
    JacksonMcpJsonMapper sdkJson = new JacksonMcpJsonMapper(JSON);
    StdioGuard guard = new StdioGuard(in, out, JSON, sdkJson);
    guard.ended().thenRun(stop::countDown);
    McpSyncServer server =
        McpServer.sync(new StdioServerTransportProvider(sdkJson, guard.in(), guard.out()))
            .serverInfo("companion4j", version)
            .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
            // The tools check their arguments themselves and say in their own words how to call
            // them.
            .validateToolInputs(false)
            .tools(tools())
            .build();
    try {
      stop.await();
    } finally {
      server.closeGracefully();
    }
  }

  /**
   * The tools, in {@link #TOOL_NAMES}' order, for the stdio server and for tests. Their handlers
   * run on the SDK's thread that reads stdin, one call at a time; each asks the companion within 35
   * s at most, except {@code rename_symbol}, which waits for the user's decision.
   */
  public List<SyncToolSpecification> tools() {
    return definitions().stream()
        .map(
            t ->
                SyncToolSpecification.builder()
                    .tool(t.tool())
                    .callHandler((exchange, request) -> t.call().apply(request))
                    .build())
        .toList();
  }

  /** The same tools for a server without sessions ({@link IdeToolsRoute}). */
  List<McpStatelessServerFeatures.SyncToolSpecification> statelessTools() {
    return definitions().stream()
        .map(
            t ->
                new McpStatelessServerFeatures.SyncToolSpecification(
                    t.tool(), (context, request) -> t.call().apply(request)))
        .toList();
  }

  /** One tool, whichever kind of server offers it. */
  private record Definition(McpSchema.Tool tool, Function<CallToolRequest, CallToolResult> call) {}

  private List<Definition> definitions() {
    return List.of(
        tool(
            "ide_status",
            "Which editor serves this workspace through Companion4J: its workspace roots, the active file with "
                + "cursor and selection, the other open files, what the editor offers, the connected CLIs and the "
                + "diffs waiting for the user's review.",
            NO_ARGUMENTS,
            "{}",
            args -> ide.status()),
        tool(
            "get_diagnostics",
            "The errors and warnings the user's editor shows (compiler, linter) for one file, or for every open "
                + "file when no path is given; most severe first, with line and column. Use it before fixing "
                + "\"the errors\" the user means, and after an edit to check it compiles in the editor.",
            schema(
                Map.of(
                    "path",
                    property(
                        "string",
                        "The file, absolute or relative to the workspace; leave out for all open files"))),
            "{\"path\": \"src/Main.java\"} or {}",
            args ->
                ide.diagnostics(
                    text(args, "path", "the file, absolute or relative to the workspace"))),
        tool(
            "get_open_editors",
            "The files open in the user's editor, newest first: which is active, its cursor and selection, and which "
                + "have changes not saved yet (their text on disk is older than what the user sees).",
            NO_ARGUMENTS,
            "{}",
            args -> ide.openEditors()),
        tool(
            "get_selection",
            "The text selected in the user's active editor, with the file and the selection's lines and columns.",
            NO_ARGUMENTS,
            "{}",
            args -> ide.selection()),
        tool(
            "open_file",
            "Shows the user a place in a file in their editor: opens it and puts the cursor at the line and column. "
                + "Only files inside the workspace.",
            schema(
                Map.of(
                    "path", property("string", "The file, absolute or relative to the workspace"),
                    "line", position("1-based line; leave out to just open the file"),
                    "column", position("1-based column on that line")),
                "path"),
            "{\"path\": \"src/Main.java\", \"line\": 12, \"column\": 5}",
            args ->
                ide.open(
                    text(args, "path", "the file, absolute or relative to the workspace"),
                    number(args, "line"),
                    number(args, "column"))),
        tool(
            "get_pending_diffs",
            "The edits proposed to the user's editor that wait for their review (accept, edit or reject), with the "
                + "file, the proposing CLI and since when.",
            NO_ARGUMENTS,
            "{}",
            args -> ide.pendingDiffs()),
        tool(
            "find_definition",
            "Where the symbol at a place in a file is declared, as the user's editor resolves it (its compiler "
                + "or language server, unsaved text included): file, line, column and that line's text.",
            positionSchema(Map.of()),
            POSITION_EXAMPLE,
            args -> code.find("definition", position(args), "definitions")),
        tool(
            "find_references",
            "Every place the symbol at a place in a file is used across the workspace, as the editor's "
                + "find-usages sees it, the declaration marked; each with the line's text. Use it before "
                + "changing or judging a change to a function, type or field.",
            positionSchema(Map.of()),
            POSITION_EXAMPLE,
            args -> code.find("references", position(args), "references")),
        tool(
            "document_symbols",
            "The classes, functions, fields and other symbols one file declares, with their lines, as the "
                + "editor's outline shows them.",
            schema(Map.of("path", property("string", PATH)), "path"),
            "{\"path\": \"src/Main.java\"}",
            args -> code.find("documentSymbols", CodeTools.query("path", path(args)), "symbols")),
        tool(
            "workspace_symbols",
            "Finds classes, functions and other symbols in the workspace by their name or part of it, as the "
                + "editor's go-to-symbol does.",
            schema(
                Map.of("query", property("string", "The name or part of it, e.g. \"Engine\"")),
                "query"),
            "{\"query\": \"Engine\"}",
            args ->
                code.find(
                    "workspaceSymbols",
                    CodeTools.query("query", required(args, "query", "part of a symbol's name")),
                    "symbols")),
        tool(
            "call_hierarchy",
            "The callers (incoming) of the function or method at a place, or what it calls (outgoing), each "
                + "with the line where the call is written.",
            positionSchema(
                Map.of(
                    "direction",
                    choice(
                        "incoming: who calls it; outgoing: what it calls",
                        "incoming",
                        "outgoing"))),
            "{\"path\": \"src/Main.java\", \"line\": 12, \"column\": 10, \"direction\": \"incoming\"}",
            args ->
                code.find(
                    "callHierarchy",
                    direction(args, "incoming", "outgoing"),
                    args.get("direction").equals("incoming") ? "callers" : "calls")),
        tool(
            "type_hierarchy",
            "The direct supertypes (what it extends or implements) or subtypes (what extends or implements "
                + "it) of the type at a place.",
            positionSchema(
                Map.of(
                    "direction",
                    choice(
                        "supertypes: what it extends or implements; subtypes: what extends or implements it",
                        "supertypes",
                        "subtypes"))),
            "{\"path\": \"src/Shape.java\", \"line\": 3, \"column\": 14, \"direction\": \"subtypes\"}",
            args -> code.find("typeHierarchy", direction(args, "supertypes", "subtypes"), "types")),
        tool(
            "rename_symbol",
            "Renames the symbol at a place everywhere it is used, with the editor's own refactoring: the user "
                + "reviews every file it changes as one change in the editor and accepts or rejects it whole. "
                + "Waits for their decision and says it. Prefer it to editing each use by hand.",
            positionSchema(Map.of("newName", property("string", "The symbol's new name"))),
            "{\"path\": \"src/Main.java\", \"line\": 12, \"column\": 10, \"newName\": \"total\"}",
            args -> {
              Map<String, Object> query = position(args);
              query.put("newName", required(args, "newName", "the symbol's new name"));
              return code.rename(query);
            }));
  }

  private static final String PATH = "The file, absolute or relative to the workspace";
  private static final String POSITION_EXAMPLE =
      "{\"path\": \"src/Main.java\", \"line\": 12, \"column\": 10}";

  /** A place in a file, with {@code more} properties, all required. */
  private static Map<String, Object> positionSchema(Map<String, Object> more) {
    Map<String, Object> properties = new java.util.LinkedHashMap<>();
    properties.put("path", property("string", PATH));
    properties.put("line", position("1-based line"));
    properties.put("column", position("1-based column of a character in the symbol's name"));
    properties.putAll(more);
    return schema(properties, properties.keySet().toArray(String[]::new));
  }

  private static Map<String, Object> choice(String description, String... values) {
    return Map.of("type", "string", "enum", List.of(values), "description", description);
  }

  private static String path(Map<String, Object> args) {
    return required(args, "path", "the file, absolute or relative to the workspace");
  }

  private static Map<String, Object> position(Map<String, Object> args) {
    Map<String, Object> query =
        CodeTools.query(
            "path", path(args), "line", number(args, "line"), "column", number(args, "column"));
    if (!query.containsKey("line") || ((Integer) query.get("line")) == 0) {
      throw new BadArgument("\"line\" is required: the 1-based line of the symbol.");
    }
    if (((Integer) query.get("column")) == 0) {
      throw new BadArgument(
          "\"column\" is required: the 1-based column of a character in the symbol's name.");
    }
    return query;
  }

  private static Map<String, Object> direction(Map<String, Object> args, String one, String other) {
    Map<String, Object> query = position(args);
    Object direction = args.get("direction");
    if (!one.equals(direction) && !other.equals(direction)) {
      throw new BadArgument("\"direction\" must be \"" + one + "\" or \"" + other + "\".");
    }
    query.put("direction", direction);
    return query;
  }

  private static String required(Map<String, Object> args, String name, String what) {
    String value = text(args, name, what);
    if (value == null) {
      throw new BadArgument("\"" + name + "\" is required: " + what + ".");
    }
    return value;
  }

  /**
   * A tool whose every failure reaches the model in words that say how to call it, as {@code
   * example} shows: a wrong argument, and anything unforeseen, never as a library's message.
   */
  private static Definition tool(
      String name,
      String description,
      Map<String, Object> schema,
      String example,
      Function<Map<String, Object>, CallToolResult> handler) {
    return new Definition(
        McpSchema.Tool.builder().name(name).description(description).inputSchema(schema).build(),
        request -> {
          try {
            return handler.apply(request.arguments() == null ? Map.of() : request.arguments());
          } catch (BadArgument e) {
            return failure(e.getMessage() + " Call it as: " + name + " " + example + ".");
          } catch (RuntimeException e) {
            log.warn("{} failed", name, e);
            return failure(
                name
                    + " failed: the companion's answer was not what this extension expects. Check that the "
                    + "editor's Companion4J and this extension are the same version; `companion4j status` lists the companions.");
          }
        });
  }

  private static CallToolResult failure(String text) {
    return CallToolResult.builder().addTextContent(text).isError(true).build();
  }

  /** A JSON schema property of a tool's input. */
  private static Map<String, Object> property(String type, String description) {
    return Map.of("type", type, "description", description);
  }

  /** A 1-based line or column. */
  private static Map<String, Object> position(String description) {
    return Map.of("type", "integer", "minimum", 1, "description", description);
  }

  private static Map<String, Object> schema(Map<String, Object> properties, String... required) {
    return required.length == 0
        ? Map.of("type", "object", "properties", properties)
        : Map.of("type", "object", "properties", properties, "required", List.of(required));
  }

  /** A text argument; null when left out or blank. */
  private static String text(Map<String, Object> args, String name, String what) {
    Object value = args.get(name);
    if (value == null) {
      return null;
    }
    if (value instanceof String s) {
      return s.isBlank() ? null : s;
    }
    throw new BadArgument("\"" + name + "\" must be a string: " + what + ".");
  }

  /** A whole number from 1 the model sent, also as a numeric string; 0 when left out. */
  private static int number(Map<String, Object> args, String name) {
    Object value = args.get(name);
    if (value == null) {
      return 0;
    }
    long n;
    try {
      n =
          value instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())
              ? num.longValue()
              : value instanceof String s ? Long.parseLong(s.trim()) : -1;
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > Integer.MAX_VALUE) {
      throw new BadArgument(
          "\""
              + name
              + "\" must be a whole number from 1 (lines and columns count from 1), or left out.");
    }
    return (int) n;
  }

  /** An argument the model got wrong; its message says what was wrong. */
  private static final class BadArgument extends RuntimeException {
    BadArgument(String message) {
      super(message, null, false, false);
    }
  }
}
