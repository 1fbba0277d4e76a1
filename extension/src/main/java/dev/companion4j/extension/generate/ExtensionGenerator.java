package dev.companion4j.extension.generate;

import dev.companion4j.extension.io.Directories;
import dev.companion4j.extension.mcp.IdeToolsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * Writes the extension for each CLI from the one canonical source in {@code extension/source}: the
 * manifest, the context file, hooks, agents, commands and (where the CLI has a policy engine)
 * policies, with each CLI's names, variables and frontmatter from {@code source/runtimes/}. The
 * output is a pure function of the source: same bytes on every run and machine.
 */
public final class ExtensionGenerator {
  /** The launcher every hook and the MCP server run, relative to the extension. */
  public static final String LAUNCHER = "bin/companion4j";

  private static final JsonMapper JSON =
      JsonMapper.builder()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .build();
  private static final YAMLMapper YAML =
      YAMLMapper.builder()
          .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
          .disable(YAMLWriteFeature.SPLIT_LINES)
          .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
          .build();
  private static final TomlMapper TOML = TomlMapper.builder().build();
  private static final Pattern FRONTMATTER =
      Pattern.compile("\\A---\\n(.*?)\\n---\\n(.*)\\z", Pattern.DOTALL);
  private static final Pattern TOOL_TOKEN = Pattern.compile("\\$\\{tool:([a-z_]+)}");

  private final Path source;
  private final JsonNode manifest;

  public ExtensionGenerator(Path source) {
    this.source = source;
    this.manifest = readJson("extension.json");
  }

  /**
   * Writes every runtime's extension under {@code out/<runtime>}, replacing what was there.
   * Arguments: the source directory and the output directory.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ExtensionGenerator <source dir> <output dir>");
      System.exit(2);
    }
    ExtensionGenerator generator = new ExtensionGenerator(Path.of(args[0]));
    for (RuntimeConfig runtime : generator.runtimes()) {
      Path dir = Path.of(args[1], runtime.runtime());
      Directories.deleteRecursively(dir);
      for (Map.Entry<String, byte[]> file : generator.generate(runtime).entrySet()) {
        Path target = dir.resolve(file.getKey());
        Files.createDirectories(target.getParent());
        Files.write(target, file.getValue());
        if (file.getKey().equals(LAUNCHER)) {
          target.toFile().setExecutable(true, false);
        }
      }
    }
  }

  /** The runtimes the source declares, by name. */
  public List<RuntimeConfig> runtimes() {
    try (Stream<Path> files = Files.list(source.resolve("runtimes"))) {
      return files.sorted().map(f -> JSON.readValue(f.toFile(), RuntimeConfig.class)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every file of {@code runtime}'s extension, by path relative to it, in a stable order. */
  public SortedMap<String, byte[]> generate(RuntimeConfig runtime) {
    SortedMap<String, byte[]> files = new TreeMap<>();
    files.put(runtime.manifestFile(), json(manifest(runtime)));
    files.put(runtime.contextFileName(), text(substitute(read("context.md"), runtime)));
    files.put(runtime.hooks().file(), json(hooks(runtime)));
    files.put(LAUNCHER, text(read("launcher.sh")));
    for (Path agent : list("agents", ".md")) {
      files.put(
          "agents/" + agent.getFileName(),
          text(agent(runtime, read(source.relativize(agent).toString()))));
    }
    for (Path command : list("commands", ".toml")) {
      String name = source.resolve("commands").relativize(command).toString().replace('\\', '/');
      files.put("commands/" + name, text(command(runtime, command)));
    }
    if (runtime.has("policyEngine")) {
      files.put(runtime.policies().file(), text(policies(runtime)));
    }
    return files;
  }

  private ObjectNode manifest(RuntimeConfig runtime) {
    ObjectNode m = JSON.createObjectNode();
    for (String field : runtime.manifestFields()) {
      m.set(field, manifest.get(field));
    }
    m.put("contextFileName", runtime.contextFileName());
    JsonNode server = manifest.path("mcpServer");
    ObjectNode servers = m.putObject("mcpServers");
    ObjectNode declared = servers.putObject(server.path("name").asString());
    declared.put("command", runtime.manifestRoot() + LAUNCHER.replace("/", "${/}"));
    declared.set("args", server.path("args"));
    ObjectNode env = declared.putObject("env");
    env.put("COMPANION4J_RUNTIME", runtime.runtime());
    env.put("COMPANION4J_WORKSPACE", "${workspacePath}");
    m.set("settings", manifest.path("settings"));
    if (runtime.hooks().declaredInManifest()) {
      m.put("hooks", runtime.hooks().file());
    }
    return m;
  }

  private ObjectNode hooks(RuntimeConfig runtime) {
    Map<String, ArrayNode> byEvent = new LinkedHashMap<>();
    for (JsonNode binding : readJson("hooks.json").path("hooks")) {
      RuntimeConfig.Event event = runtime.hooks().events().get(binding.path("event").asString());
      if (event == null) {
        continue;
      }
      ObjectNode entry = JSON.createObjectNode();
      String matcher =
          event.matchAgents() ? "^(" + String.join("|", agentNames()) + ")$" : event.matcher();
      if (matcher != null) {
        entry.put("matcher", matcher);
      }
      ObjectNode hook = entry.putArray("hooks").addObject();
      hook.put("type", "command");
      hook.put(
          "command",
          "\""
              + runtime.hooks().root()
              + LAUNCHER
              + "\" hook "
              + runtime.runtime()
              + " "
              + binding.path("run").asString());
      int seconds = binding.path("timeoutSeconds").asInt();
      hook.put("timeout", runtime.hooks().timeoutUnit().equals("ms") ? seconds * 1000 : seconds);
      byEvent.computeIfAbsent(event.event(), e -> JSON.createArrayNode()).add(entry);
    }
    ObjectNode root = JSON.createObjectNode();
    ObjectNode hooks = root.putObject("hooks");
    byEvent.forEach(hooks::set);
    return root;
  }

  private String agent(RuntimeConfig runtime, String canonical) {
    Matcher m = FRONTMATTER.matcher(canonical);
    if (!m.matches()) {
      throw new IllegalArgumentException("an agent needs a --- frontmatter --- block");
    }
    JsonNode front = YAML.readTree(m.group(1));
    Map<String, Object> out = new LinkedHashMap<>(new TreeMap<>(runtime.agentConstants()));
    for (Map.Entry<String, JsonNode> field : front.properties()) {
      String name = runtime.agentFields().get(field.getKey());
      if (name == null) {
        continue;
      }
      if (field.getKey().equals("tools")) {
        List<String> tools = new ArrayList<>();
        field.getValue().forEach(t -> tools.add(toolName(runtime, t.asString())));
        out.put(name, tools);
      } else {
        out.put(name, YAML.treeToValue(field.getValue(), Object.class));
      }
    }
    return "---\n" + YAML.writeValueAsString(out) + "---\n" + substitute(m.group(2), runtime);
  }

  private String command(RuntimeConfig runtime, Path file) {
    JsonNode canonical = TOML.readTree(file.toFile());
    Map<String, String> out = new LinkedHashMap<>();
    out.put("description", canonical.path("description").asString());
    out.put("prompt", substitute(canonical.path("prompt").asString(), runtime));
    return TOML.writeValueAsString(out);
  }

  /**
   * Gemini CLI's policy rules, a second layer behind the shell-policy hook that runs there too:
   * deny rules only, for the rules that carry a pattern. The engine matches {@code commandRegex}
   * right after {@code "command":"} in the JSON of the tool's arguments, where a tab or a newline
   * reads {@code \t} or {@code \n}: the patterns say so themselves.
   */
  private String policies(RuntimeConfig runtime) {
    List<Map<String, Object>> rules = new ArrayList<>();
    for (JsonNode rule : readJson("shell-policy.json").path("rules")) {
      if (!rule.has("pattern")) {
        continue;
      }
      if (!rule.path("decision").asString().equals("deny")) {
        throw new IllegalArgumentException(
            "a pattern on an ask rule: Gemini CLI would ask where the hook lets a command through");
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("toolName", runtime.tool("run_shell_command"));
      r.put("commandRegex", rule.path("pattern").asString());
      r.put("decision", "deny");
      r.put("priority", runtime.policies().denyPriority());
      r.put("denyMessage", rule.path("message").asString());
      rules.add(r);
    }
    return "# Generated from extension/source/shell-policy.json: edit that file, not this one.\n"
        + TOML.writeValueAsString(Map.of("rule", rules));
  }

  private String substitute(String text, RuntimeConfig runtime) {
    return TOOL_TOKEN
        .matcher(text)
        .replaceAll(m -> Matcher.quoteReplacement(toolName(runtime, m.group(1))));
  }

  private String toolName(RuntimeConfig runtime, String canonical) {
    return IdeToolsServer.TOOL_NAMES.contains(canonical)
        ? runtime.mcpTool(manifest.path("mcpServer").path("name").asString(), canonical)
        : runtime.tool(canonical);
  }

  private List<String> agentNames() {
    return list("agents", ".md").stream()
        .map(p -> p.getFileName().toString().replaceFirst("\\.md$", ""))
        .toList();
  }

  private List<Path> list(String dir, String suffix) {
    try (Stream<Path> files = Files.walk(source.resolve(dir))) {
      return files
          .filter(f -> f.toString().endsWith(suffix))
          .sorted(Comparator.comparing(Path::toString))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JsonNode readJson(String name) {
    return JSON.readTree(read(name));
  }

  private String read(String name) {
    try {
      return Files.readString(source.resolve(name), StandardCharsets.UTF_8).replace("\r\n", "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] json(JsonNode node) {
    return text(JSON.writeValueAsString(node) + "\n");
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
