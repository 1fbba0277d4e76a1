package dev.companion4j.extension.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tools without a companion; with one, ExtensionIT asks them through the real CLIs. */
class IdeToolsServerTest {
  @Test
  void ideStatusWithoutACompanionSaysWhatToDoInsteadOfFailing(@TempDir Path temp) {
    Path workspace = temp.resolve("project");
    IdeToolsServer server = new IdeToolsServer(
        new IdeLink(new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"))), workspace, "test");
    SyncToolSpecification status = server.tools().get(0);
    assertThat(status.tool().name()).isEqualTo("ide_status");
    McpSchema.CallToolResult result = status.callHandler().apply(null, new McpSchema.CallToolRequest("ide_status", Map.of()));
    assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(((McpSchema.TextContent) result.content().get(0)).text())
        .contains("No IDE companion serves " + workspace)
        .contains("companion4j serve");
  }
}
