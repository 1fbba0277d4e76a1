package dev.companion4j.extension.mcp;

import static org.awaitility.Awaitility.await;

import dev.companion4j.engine.ChangeReview;
import dev.companion4j.engine.CodeQuery;
import dev.companion4j.engine.CodeResult;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.CompanionHost;
import dev.companion4j.engine.DiffReview;
import dev.companion4j.engine.HostActionException;
import dev.companion4j.engine.HostFeature;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.PendingChange;
import dev.companion4j.engine.PendingDiff;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.extension.ide.IdeLink;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The editor of the tools' tests, "Plain Editor", with the features it is given: it records where
 * it was asked to open files and which questions about code it was asked, answers them from a
 * table, and holds the review of a change for the test to answer. With the helpers that start a
 * companion for it and call a tool as the CLI would.
 */
final class PlainEditor implements CompanionHost {
  final List<String> opened = new CopyOnWriteArrayList<>();
  final List<CodeQuery> asked = new CopyOnWriteArrayList<>();
  final AtomicReference<ChangeReview> review = new AtomicReference<>();
  final AtomicReference<PendingChange> shown = new AtomicReference<>();
  volatile List<CodeResult> answer = List.of();
  volatile String refusal;
  volatile Map<Path, String> edits = Map.of();
  private final Path root;
  private final Set<HostFeature> features;

  PlainEditor(Path root, Set<HostFeature> features) {
    this.root = root;
    this.features = features;
  }

  /** A companion for {@code editor}, its discovery files under {@code temp}, started. */
  static Companion start(Path temp, PlainEditor editor) throws Exception {
    Companion companion = Companion.builder(editor).discoveryLocations(locations(temp)).build();
    companion.start();
    return companion;
  }

  static DiscoveryLocations locations(Path temp) {
    return new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"));
  }

  static McpSchema.CallToolResult call(
      IdeToolsServer server, String name, Map<String, Object> args) {
    SyncToolSpecification tool =
        server.tools().stream().filter(t -> t.tool().name().equals(name)).findFirst().orElseThrow();
    return tool.callHandler().apply(null, new McpSchema.CallToolRequest(name, args));
  }

  static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  /** The tools of a CLI working in {@code workspace}, finding companions as the extension does. */
  static IdeToolsServer server(Path temp, Path workspace) {
    return new IdeToolsServer(new IdeLink(locations(temp)), workspace, "test");
  }

  ChangeReview awaitReview() {
    return await().atMost(Duration.ofSeconds(30)).until(review::get, r -> r != null);
  }

  @Override
  public IdeInfo ideInfo() {
    return new IdeInfo("plain", "Plain Editor");
  }

  @Override
  public List<Path> workspaceRoots() {
    return List.of(root);
  }

  @Override
  public Set<HostFeature> features() {
    return features;
  }

  @Override
  public String openFile(Path path, int line, int character) throws HostActionException {
    opened.add(path + ":" + line + ":" + character);
    return "Opened "
        + path.getFileName()
        + " at line "
        + line
        + ", column "
        + character
        + " in Plain Editor.";
  }

  @Override
  public List<CodeResult> findCode(CodeQuery query) throws HostActionException {
    if (refusal != null) {
      throw new HostActionException(refusal);
    }
    asked.add(query);
    return answer;
  }

  @Override
  public Map<Path, String> renameEdits(CodeQuery.Rename rename) {
    return edits;
  }

  @Override
  public void showChange(PendingChange change, ChangeReview review) {
    shown.set(change);
    this.review.set(review);
  }

  @Override
  public void showDiff(PendingDiff diff, DiffReview review) {}

  @Override
  public Optional<String> closeDiff(PendingDiff diff) {
    return Optional.empty();
  }
}
