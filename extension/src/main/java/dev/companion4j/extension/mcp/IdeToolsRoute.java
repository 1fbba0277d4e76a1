package dev.companion4j.extension.mcp;

import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.engine.Companion;
import dev.companion4j.extension.ide.IdeLink;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * The IDE tools of {@link IdeToolsServer}, served by a companion itself over MCP's streamable HTTP
 * at {@link #PATH}, for the ACP chat agent the companion's host starts: the agent gets them in
 * {@code session/new}'s {@code mcpServers} ({@link #forAgent}), since an editor has no command line
 * to start {@code companion4j mcp} with. Mounted with {@link Companion.Builder#mcpRoute}: behind
 * the token and Host checks, every Origin refused, its messages checked and its errors answered as
 * on {@code /mcp}.
 *
 * <p>Without sessions: each request stands alone, so no stream stays open to an agent and nothing
 * is kept for one that went away. Each call asks the companion's own {@code /ide/} routes over
 * loopback, as the stdio server asks them, so the answers are the same words.
 */
public final class IdeToolsRoute {
  /** Where a companion serves the tools. */
  public static final String PATH = "/ide-tools";

  /**
   * The server's name for the agent, the extension's: its tools are named as the extension's (Qwen
   * Code: {@code mcp__companion4j__get_diagnostics}), which its agents and text use.
   */
  public static final String NAME = "companion4j";

  private IdeToolsRoute() {}

  /**
   * The route's servlet, answering from the companion {@code companion} supplies once it runs (a
   * host builds the route before the companion).
   */
  public static HttpServlet servlet(Supplier<Companion> companion) {
    IdeToolsServer tools =
        new IdeToolsServer(
            IdeLink.to(companion),
            () -> firstRoot(companion.get()),
            Objects.requireNonNullElse(
                IdeToolsRoute.class.getPackage().getImplementationVersion(), "unversioned"));
    HttpServletStatelessServerTransport transport =
        HttpServletStatelessServerTransport.builder()
            .jsonMapper(new JacksonMcpJsonMapper(JsonMapper.shared()))
            .messageEndpoint(PATH)
            .build();
    McpServer.sync(transport)
        .serverInfo(NAME, tools.version())
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        // The tools check their arguments themselves and say in their own words how to call them.
        .validateToolInputs(false)
        // A call is one loopback request, bounded (IdeLink): on the request's thread, as the
        // engine's own tools, not on a pool of its own.
        .immediateExecution(true)
        .tools(tools.statelessTools())
        .build();
    return transport;
  }

  /**
   * The tools of the companion on {@code port} as an ACP agent's session gets them: the route's
   * loopback address, and the companion's token in a header, never in the URL or an argument.
   */
  public static AcpIdeConnection.HttpMcpServer forAgent(int port, String authToken) {
    return new AcpIdeConnection.HttpMcpServer(
        NAME, "http://127.0.0.1:" + port + PATH, Map.of("Authorization", "Bearer " + authToken));
  }

  /** What relative paths are resolved against: the first root, else the working directory. */
  private static Path firstRoot(Companion companion) {
    List<Path> roots = companion == null ? List.of() : companion.workspaceRoots();
    return roots.isEmpty() ? Path.of("").toAbsolutePath() : roots.get(0);
  }
}
