package dev.companion4j.extension.mcp;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code tools against a real companion whose host answers from a table: what reaches the host,
 * what the model reads, every refusal, and a rename reviewed as one change. The editors' own
 * answers are proven against NetBeans and Neovim in their ITs.
 */
class CodeToolsTest {
  private static final String SHAPES = "package app;\n\ninterface Shape {\n  double area();\n}\n";
  private static final String CIRCLE =
      "package app;\n\nclass Circle implements Shape {\n  public double area() { return 3; }\n}\n";

  @Test
  void eachToolAsksTheEditorOnceAndTheModelReadsEveryPlaceWithItsLine(@TempDir Path temp)
      throws Exception {
    Path ws = Files.createDirectories(temp.resolve("ws"));
    Path shape = Files.writeString(ws.resolve("Shape.java"), SHAPES);
    Path circle = Files.writeString(ws.resolve("Circle.java"), CIRCLE);
    Host host = new Host(ws, EnumSet.allOf(HostFeature.class));
    host.answer =
        List.of(
            new CodeResult("area", "method", shape, 4, 10, "  double area();", true),
            CodeResult.place(circle, 4, 17, "  public double area() { return 3; }"));
    try (Companion companion = start(temp, host)) {
      IdeToolsServer server = server(temp, ws);

      McpSchema.CallToolResult refs =
          call(server, "find_references", Map.of("path", "Circle.java", "line", 4, "column", 19));
      assertThat(refs.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(host.asked)
          .containsExactly(new CodeQuery.References(new CodeQuery.Position(circle, 4, 19)));
      assertThat(text(refs))
          .isEqualTo(
              "2 references:\n"
                  + "- area (method) at "
                  + shape
                  + ":4:10: double area();  [declaration]\n"
                  + "- "
                  + circle
                  + ":4:17: public double area() { return 3; }");

      call(
          server,
          "call_hierarchy",
          Map.of("path", circle.toString(), "line", 4, "column", 19, "direction", "outgoing"));
      call(
          server,
          "type_hierarchy",
          Map.of("path", "Shape.java", "line", 3, "column", 11, "direction", "subtypes"));
      call(server, "workspace_symbols", Map.of("query", "Circ"));
      call(server, "document_symbols", Map.of("path", "Shape.java"));
      call(server, "find_definition", Map.of("path", "Circle.java", "line", "4", "column", 19));
      assertThat(host.asked)
          .containsExactly(
              new CodeQuery.References(new CodeQuery.Position(circle, 4, 19)),
              new CodeQuery.CallHierarchy(new CodeQuery.Position(circle, 4, 19), false),
              new CodeQuery.TypeHierarchy(new CodeQuery.Position(shape, 3, 11), false),
              new CodeQuery.WorkspaceSymbols("Circ"),
              new CodeQuery.DocumentSymbols(shape),
              new CodeQuery.Definition(new CodeQuery.Position(circle, 4, 19)));

      host.answer = List.of();
      assertThat(text(call(server, "workspace_symbols", Map.of("query", "Nothing"))))
          .isEqualTo("No symbols found.");
    }
  }

  @Test
  void aLongAnswerIsCutAtAHundredAndTheRestCounted(@TempDir Path temp) throws Exception {
    Path ws = Files.createDirectories(temp.resolve("ws"));
    Path shape = Files.writeString(ws.resolve("Shape.java"), SHAPES);
    Host host = new Host(ws, EnumSet.allOf(HostFeature.class));
    List<CodeResult> many = new ArrayList<>();
    for (int i = 1; i <= 130; i++) {
      many.add(CodeResult.place(shape, 4, i, "use " + i));
    }
    host.answer = many;
    try (Companion companion = start(temp, host)) {
      McpSchema.CallToolResult refs =
          call(
              server(temp, ws),
              "find_references",
              Map.of("path", "Shape.java", "line", 4, "column", 10));
      assertThat(text(refs))
          .startsWith("130 references:\n")
          .contains(":4:100: use 100\n")
          .doesNotContain("use 101")
          .endsWith("…and 30 more not listed.");
      assertThat(((Map<?, ?>) refs.structuredContent()).get("more")).isEqualTo(30);
    }
  }

  @Test
  void refusalsSayWhyAndNeverReachAnEditorThatCannotAnswer(@TempDir Path temp) throws Exception {
    Path ws = Files.createDirectories(temp.resolve("ws"));
    Files.writeString(ws.resolve("Shape.java"), SHAPES);
    Path outside = Files.writeString(temp.resolve("Outside.java"), SHAPES);
    Host host = new Host(ws, EnumSet.of(HostFeature.REFERENCES));
    try (Companion companion = start(temp, host)) {
      IdeToolsServer server = server(temp, ws);

      assertThat(
              refusal(
                  server, "find_definition", Map.of("path", "Shape.java", "line", 4, "column", 10)))
          .isEqualTo("Plain Editor does not answer definition questions");
      assertThat(
              refusal(
                  server,
                  "find_references",
                  Map.of("path", outside.toString(), "line", 4, "column", 10)))
          .contains(outside + " is outside the workspace");
      assertThat(
              refusal(
                  server, "find_references", Map.of("path", "Shape.java", "line", 9, "column", 1)))
          .isEqualTo("line 9 is outside Shape.java, which has 5 lines");
      assertThat(
              refusal(
                  server, "find_references", Map.of("path", "Shape.java", "line", 4, "column", 18)))
          .isEqualTo("column 18 is outside line 4 of Shape.java, which has 16 characters");
      assertThat(
              refusal(
                  server, "find_references", Map.of("path", "Gone.java", "line", 1, "column", 1)))
          .startsWith("no such file: ");
      assertThat(refusal(server, "find_references", Map.of("path", "Shape.java", "line", 4)))
          .startsWith("\"column\" is required")
          .contains("Call it as: find_references {\"path\"");
      assertThat(
              refusal(
                  server,
                  "call_hierarchy",
                  Map.of("path", "Shape.java", "line", 4, "column", 10, "direction", "up")))
          .startsWith("\"direction\" must be \"incoming\" or \"outgoing\".");
      assertThat(host.asked).isEmpty();

      host.refusal = "Plain Editor knows no language of Shape.java";
      assertThat(
              refusal(
                  server, "find_references", Map.of("path", "Shape.java", "line", 4, "column", 10)))
          .isEqualTo("Plain Editor knows no language of Shape.java");
    }
  }

  @Test
  void aRenameIsReviewedAsOneChangeAndTheToolSaysWhatTheUserDecided(@TempDir Path temp)
      throws Exception {
    Path ws = Files.createDirectories(temp.resolve("ws"));
    Path shape = Files.writeString(ws.resolve("Shape.java"), SHAPES);
    Path circle = Files.writeString(ws.resolve("Circle.java"), CIRCLE);
    Host host = new Host(ws, EnumSet.allOf(HostFeature.class));
    Map<Path, String> edits = new LinkedHashMap<>();
    edits.put(shape, SHAPES.replace("area", "surface"));
    edits.put(circle, CIRCLE.replace("area", "surface"));
    host.edits = edits;
    try (Companion companion = start(temp, host)) {
      IdeToolsServer server = server(temp, ws);
      Map<String, Object> rename =
          Map.of("path", "Shape.java", "line", 4, "column", 10, "newName", "surface");

      CompletableFuture<McpSchema.CallToolResult> rejected =
          CompletableFuture.supplyAsync(() -> call(server, "rename_symbol", rename));
      ChangeReview first = host.awaitReview();
      assertThat(host.shown.get().files())
          .extracting(PendingChange.File::path)
          .containsExactly(shape, circle);
      first.reject();
      assertThat(text(rejected.get(30, TimeUnit.SECONDS)))
          .isEqualTo("The user rejected the rename; no file was changed.");
      assertThat(Files.readString(shape)).isEqualTo(SHAPES);
      assertThat(Files.readString(circle)).isEqualTo(CIRCLE);

      host.review.set(null);
      CompletableFuture<McpSchema.CallToolResult> accepted =
          CompletableFuture.supplyAsync(() -> call(server, "rename_symbol", rename));
      String userEdit = CIRCLE.replace("area", "surface").replace("return 3", "return 4");
      host.awaitReview().accept(Map.of(circle, userEdit));
      assertThat(text(accepted.get(30, TimeUnit.SECONDS)))
          .startsWith("The user accepted the rename to surface; the editor wrote every file of it:")
          .contains("- " + shape, "- " + circle);
      assertThat(Files.readString(shape)).isEqualTo(SHAPES.replace("area", "surface"));
      assertThat(Files.readString(circle)).isEqualTo(userEdit);

      assertThat(
              refusal(
                  server,
                  "rename_symbol",
                  Map.of("path", "Shape.java", "line", 4, "column", 10, "newName", "two words")))
          .isEqualTo("Not renamed: newName must be an identifier: 1 to 200 characters, no spaces");
    }
  }

  private static String refusal(IdeToolsServer server, String tool, Map<String, Object> args) {
    McpSchema.CallToolResult result = call(server, tool, args);
    assertThat(result.isError()).as(tool + " " + args).isTrue();
    return text(result);
  }

  private static Companion start(Path temp, CompanionHost host) throws Exception {
    Companion companion = Companion.builder(host).discoveryLocations(locations(temp)).build();
    companion.start();
    return companion;
  }

  private static IdeToolsServer server(Path temp, Path ws) {
    return new IdeToolsServer(new IdeLink(locations(temp)), ws, "test");
  }

  private static DiscoveryLocations locations(Path temp) {
    return new DiscoveryLocations(temp.resolve("tmp"), temp.resolve("qwen"));
  }

  private static McpSchema.CallToolResult call(
      IdeToolsServer server, String name, Map<String, Object> args) {
    SyncToolSpecification tool =
        server.tools().stream().filter(t -> t.tool().name().equals(name)).findFirst().orElseThrow();
    return tool.callHandler().apply(null, new McpSchema.CallToolRequest(name, args));
  }

  private static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  /** An editor that answers every query from a table and records what it was asked. */
  private static final class Host implements CompanionHost {
    final List<CodeQuery> asked = new CopyOnWriteArrayList<>();
    final AtomicReference<ChangeReview> review = new AtomicReference<>();
    final AtomicReference<PendingChange> shown = new AtomicReference<>();
    volatile List<CodeResult> answer = List.of();
    volatile String refusal;
    volatile Map<Path, String> edits = Map.of();
    private final Path root;
    private final Set<HostFeature> features;

    Host(Path root, Set<HostFeature> features) {
      this.root = root;
      this.features = features;
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

    ChangeReview awaitReview() {
      return await().atMost(Duration.ofSeconds(30)).until(review::get, r -> r != null);
    }

    @Override
    public void showDiff(PendingDiff diff, DiffReview review) {}

    @Override
    public Optional<String> closeDiff(PendingDiff diff) {
      return Optional.empty();
    }
  }
}
