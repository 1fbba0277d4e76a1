package dev.companion4j.cli;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.mcp.IdeToolsServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code companion4j mcp}: the extension's MCP server of IDE tools, on stdio. */
@Command(
    name = "mcp",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the extension's IDE tools (ide_status, get_diagnostics, open_file, …) over MCP on stdin/stdout.",
      "Qwen Code and Gemini CLI start it from the Companion4J extension; it finds the companion serving",
      "COMPANION4J_WORKSPACE (else the current directory) through the discovery files."
    })
final class McpCommand implements Callable<Integer> {
  @Override
  public Integer call() throws InterruptedException {
    new IdeToolsServer(
            new IdeLink(DiscoveryLocations.fromEnvironment()),
            IdeLink.workspace(System.getenv("COMPANION4J_WORKSPACE")),
            new Main.Version().getVersion()[0].replace("companion4j ", ""))
        .serveStdio();
    return 0;
  }
}
