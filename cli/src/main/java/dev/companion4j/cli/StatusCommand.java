package dev.companion4j.cli;

import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import java.nio.file.Path;
import java.util.ArrayList;
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
    description = {
      "Lists the companions the CLIs would find, with their review page and CLIs.",
      "One row per companion (any IDE's), alive or stale."
    })
final class StatusCommand implements Callable<Integer> {
  @Option(
      names = "--json",
      description = "One JSON object per companion and line instead of a table.")
  boolean json;

  @Option(
      names = "--show-token",
      description =
          "Show review page addresses with their token (only for companions whose discovery file you own).")
  boolean showToken;

  @Override
  public Integer call() {
    DiscoveryLocations locations = DiscoveryLocations.fromEnvironment();
    List<RunningCompanions.Entry> entries = RunningCompanions.list(new DiscoveryScanner(locations));
    if (json) {
      entries.forEach(e -> System.out.println(JsonMapper.shared().writeValueAsString(jsonOf(e))));
      return 0;
    }
    if (entries.isEmpty()) {
      System.out.println(
          "No companions found in "
              + locations.qwenLockDir()
              + ", "
              + locations.qwenSpecDir()
              + ", "
              + locations.geminiDir()
              + " or "
              + locations.tmpDir()
              + ". Start one with: companion4j serve");
      return 0;
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("PORT", "STATE", "PID", "IDE", "WORKSPACE", "REVIEW PAGE", "CLIS"));
    boolean pages = false;
    for (RunningCompanions.Entry e : entries) {
      pages |= e.reviewPage();
      rows.add(
          List.of(
              String.valueOf(e.companion().port()),
              e.companion().alive() ? "alive" : "stale",
              e.companion().pid().map(String::valueOf).orElse("-"),
              e.companion().ideName().orElse("-"),
              e.companion().workspacePath().isEmpty() ? "(none)" : e.companion().workspacePath(),
              page(e),
              e.clients().map(c -> c.isEmpty() ? "none" : String.join("; ", c)).orElse("-")));
    }
    table(rows).forEach(System.out::println);
    if (pages && !showToken) {
      System.out.println();
      System.out.println(
          "A page needs its token: `companion4j open` in the workspace opens it, `status --show-token` shows it.");
    }
    return 0;
  }

  /**
   * The rows as lines, each column as wide as its widest cell and one space apart; the last
   * unpadded.
   */
  static List<String> table(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size() - 1; i++) {
        line.append(row.get(i)).append(" ".repeat(widths[i] - row.get(i).length() + 1));
      }
      lines.add(line.append(row.get(row.size() - 1)).toString());
    }
    return lines;
  }

  private String page(RunningCompanions.Entry e) {
    if (!e.reviewPage()) {
      return "-";
    }
    return showToken && e.address().isPresent()
        ? ReviewPage.pageUrl(e.companion().port(), e.address().get().authToken())
        : e.pageAddress();
  }

  private Map<String, Object> jsonOf(RunningCompanions.Entry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("port", e.companion().port());
    m.put("state", e.companion().alive() ? "alive" : "stale");
    m.put("pid", e.companion().pid().orElse(null));
    m.put("ide", e.companion().ideName().orElse(null));
    m.put("workspacePath", e.companion().workspacePath());
    m.put("reviewPage", e.reviewPage() ? page(e) : null);
    m.put("clients", e.clients().orElse(null));
    m.put("files", e.files().stream().map(Path::toString).toList());
    return m;
  }
}
