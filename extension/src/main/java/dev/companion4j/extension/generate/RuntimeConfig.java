package dev.companion4j.extension.generate;

import java.util.List;
import java.util.Map;

/**
 * How one CLI takes the extension: file names, the variables it substitutes, its event and tool
 * names, its agent frontmatter and which features it has. Read from {@code source/runtimes/*.json}.
 *
 * @param runtime the runtime's name, also the argument of {@code companion4j hook}
 * @param manifestFile the manifest's file name
 * @param manifestFields the canonical manifest fields this CLI reads, in order
 * @param contextFileName the context file's name
 * @param manifestRoot how the manifest names the extension's directory, with a trailing separator
 * @param hooks where the hooks go and what each canonical event is called
 * @param tools canonical tool names this CLI calls otherwise; the rest keep their name
 * @param mcpToolName how the model sees an MCP server's tool: {@code {server}} and {@code {tool}}
 * @param agentFields canonical frontmatter field to this CLI's field; fields left out are dropped
 * @param agentConstants frontmatter fields every agent gets in this CLI
 * @param policies where the policy file goes, for a CLI with a policy engine; else null
 * @param features what the CLI can do, by canonical feature name
 */
public record RuntimeConfig(
    String runtime,
    String manifestFile,
    List<String> manifestFields,
    String contextFileName,
    String manifestRoot,
    Hooks hooks,
    Map<String, String> tools,
    String mcpToolName,
    Map<String, String> agentFields,
    Map<String, Object> agentConstants,
    Policies policies,
    Map<String, Boolean> features) {

  public RuntimeConfig {
    manifestFields = List.copyOf(manifestFields);
    tools = Map.copyOf(tools);
    agentFields = Map.copyOf(agentFields);
    agentConstants = Map.copyOf(agentConstants);
    features = Map.copyOf(features);
  }

  public boolean has(String feature) {
    return features.getOrDefault(feature, false);
  }

  /** This CLI's name for a built-in tool. */
  public String tool(String canonical) {
    return tools.getOrDefault(canonical, canonical);
  }

  /** This CLI's name for a tool of the extension's own MCP server. */
  public String mcpTool(String server, String tool) {
    return mcpToolName.replace("{server}", server).replace("{tool}", tool);
  }

  /**
   * @param file the hooks file, relative to the extension
   * @param declaredInManifest whether the manifest names the file (Qwen Code reads it only then)
   * @param root how the hooks file names the extension's directory, with a trailing separator
   * @param timeoutUnit the unit of a hook's {@code timeout}: {@code s} or {@code ms}
   * @param events canonical event to this CLI's event; events left out do not exist here
   */
  public record Hooks(
      String file,
      boolean declaredInManifest,
      String root,
      String timeoutUnit,
      Map<String, Event> events) {
    public Hooks {
      events = Map.copyOf(events);
    }
  }

  /**
   * @param event the CLI's event name
   * @param matcher the matcher the binding gets, or null
   * @param matchAgents whether the matcher is the extension's agent names
   */
  public record Event(String event, String matcher, boolean matchAgents) {}

  /**
   * @param file the policy file, relative to the extension
   */
  public record Policies(String file, int denyPriority) {}
}
