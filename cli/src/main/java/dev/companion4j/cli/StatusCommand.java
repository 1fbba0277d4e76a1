package dev.companion4j.cli;

import dev.companion4j.engine.discovery.DiscoveredCompanion;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.json.JsonMapper;

/** {@code companion4j status}: the companions the CLIs would find from here. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = "Lists the companions found in the discovery locations (any IDE's), alive or stale.")
final class StatusCommand implements Callable<Integer> {
  @Option(names = "--json", description = "One JSON object per line instead of a table.")
  boolean json;

  @Override
  public Integer call() {
    DiscoveryLocations locations = DiscoveryLocations.fromEnvironment();
    List<DiscoveredCompanion> found = new DiscoveryScanner(locations).scan();
    if (json) {
      JsonMapper mapper = JsonMapper.shared();
      for (DiscoveredCompanion c : found) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("port", c.port());
        m.put("workspacePath", c.workspacePath());
        m.put("ide", c.ideName().orElse(null));
        m.put("pid", c.pid().orElse(null));
        m.put("state", c.alive() ? "alive" : "stale");
        m.put("kind", c.kind().name());
        m.put("file", c.file().toString());
        System.out.println(mapper.writeValueAsString(m));
      }
      return 0;
    }
    if (found.isEmpty()) {
      System.out.println("No companions found in " + locations.qwenLockDir() + ", " + locations.qwenSpecDir()
          + ", " + locations.geminiDir() + " or " + locations.tmpDir());
      return 0;
    }
    String format = "%-6s %-6s %-8s %-20s %-12s %s%n";
    System.out.printf(format, "PORT", "STATE", "PID", "IDE", "KIND", "WORKSPACE");
    for (DiscoveredCompanion c : found) {
      System.out.printf(
          format,
          c.port(),
          c.alive() ? "alive" : "stale",
          c.pid().map(String::valueOf).orElse("-"),
          c.ideName().orElse("-"),
          c.kind().name().toLowerCase(java.util.Locale.ROOT),
          c.workspacePath().isEmpty() ? "(none)" : c.workspacePath());
    }
    return 0;
  }
}
