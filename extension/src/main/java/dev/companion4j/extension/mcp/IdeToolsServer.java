package dev.companion4j.extension.mcp;

import dev.companion4j.engine.CompanionStatus;
import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.ide.StatusText;
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
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's MCP server on stdio, started by the CLI: IDE tools beyond the IDE-mode contract,
 * answered by the companion that serves the CLI's workspace. Every tool call looks the companion
 * up again, so an editor opened or closed mid-session is seen; with none, tools answer with what
 * to do instead of failing.
 */
public final class IdeToolsServer {
  private static final JsonMapper JSON = JsonMapper.shared();

  private final IdeLink ide;
  private final Path workspace;
  private final String version;

  public IdeToolsServer(IdeLink ide, Path workspace, String version) {
    this.ide = ide;
    this.workspace = workspace;
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
   * The tools, for the stdio server and for tests. Their handlers run on the SDK's thread that
   * reads stdin, one call at a time; each asks the companion within a few seconds at most.
   */
  public List<SyncToolSpecification> tools() {
    McpSchema.Tool status = McpSchema.Tool.builder()
        .name("ide_status")
        .description("Which editor serves this workspace through Companion4J: its workspace roots, the active file with "
            + "cursor and selection, the other open files, the connected CLIs and the diffs waiting for the user's review.")
        .inputSchema(Map.of("type", "object", "properties", Map.of()))
        .build();
    return List.of(SyncToolSpecification.builder()
        .tool(status)
        .callHandler((exchange, request) -> ideStatus())
        .build());
  }

  private CallToolResult ideStatus() {
    Optional<CompanionStatus> status = ide.status(workspace);
    if (status.isEmpty()) {
      return CallToolResult.builder().addTextContent(StatusText.none(workspace)).build();
    }
    return CallToolResult.builder()
        .addTextContent(StatusText.of(status.get()))
        .structuredContent(JSON.convertValue(status.get(), Map.class))
        .build();
  }
}
