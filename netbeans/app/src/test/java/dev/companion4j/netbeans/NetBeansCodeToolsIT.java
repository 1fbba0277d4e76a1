package dev.companion4j.netbeans;

import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.swing.JEditorPane;
import junit.framework.Test;
import org.netbeans.junit.NbTestCase;
import org.openide.util.Lookup;

/**
 * NetBeans' Java support answering the companion's questions about code, on a project of an
 * interface ({@code shop.Greeter}), two implementations and two callers in another package:
 * definition, references, document and workspace symbols, callers and callees, super- and subtypes,
 * the refusals, and a rename NetBeans computes, proposed as one change, then rejected (nothing
 * changes) and accepted (every file changes, through the editor, and NetBeans resolves the new
 * name).
 */
public class NetBeansCodeToolsIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 120));
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("code");
  private static final Path SRC = WORKSPACE.resolve("src");
  private static final Path GREETER = SRC.resolve("shop/Greeter.java");
  private static final Path ENGLISH = SRC.resolve("shop/English.java");
  private static final Path FRENCH = SRC.resolve("shop/French.java");
  private static final Path MAIN = SRC.resolve("app/Main.java");
  private static final Path REPORT = SRC.resolve("app/Report.java");

  private static final Map<Path, String> FILES = new LinkedHashMap<>();

  static {
    FILES.put(
        GREETER,
        lines(
            "package shop;",
            "",
            "public interface Greeter {",
            "    String greet(String name);",
            "}"));
    FILES.put(ENGLISH, greeter("English", "Hello, "));
    FILES.put(FRENCH, greeter("French", "Bonjour, "));
    FILES.put(
        MAIN,
        lines(
            "package app;",
            "",
            "import shop.English;",
            "import shop.Greeter;",
            "",
            "public class Main {",
            "    public static void main(String[] args) {",
            "        Greeter greeter = new English();",
            "        System.out.println(welcome(greeter, \"Ada\"));",
            "    }",
            "",
            "    static String welcome(Greeter greeter, String name) {",
            "        return greeter.greet(name).trim();",
            "    }",
            "}"));
    // A character outside the BMP before the call: two UTF-16 units, one code point.
    FILES.put(
        REPORT,
        lines(
            "package app;",
            "",
            "import shop.Greeter;",
            "",
            "class Report {",
            "    String line(Greeter g) {",
            "        return \"\uD83D\uDE42 \" + g.greet(\"report\");",
            "    }",
            "}"));
  }

  /** What each file holds now. */
  private final Map<Path, String> now = new LinkedHashMap<>(FILES);

  public NetBeansCodeToolsIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansCodeToolsIT.class)
        .addTest("testJavaSupportAnswersTheCodeToolsAndRenamesAsOneReviewedChange")
        .suite();
  }

  public void testJavaSupportAnswersTheCodeToolsAndRenamesAsOneReviewedChange() throws Exception {
    for (Map.Entry<Path, String> f : FILES.entrySet()) {
      Files.createDirectories(f.getKey().getParent());
      Files.writeString(f.getKey(), f.getValue());
    }
    Files.writeString(WORKSPACE.resolve(TestProjectFactory.MARKER), "");
    Files.writeString(WORKSPACE.resolve("notes.txt"), "Greeter greets.\n");
    Path outside = Files.createDirectories(BUILD.resolve("workspace/elsewhere")).resolve("X.java");
    Files.writeString(outside, "class X {}\n");
    TestClassPathProvider.openJavaProject(WORKSPACE);
    Await.until(
        WAIT,
        Duration.ofMillis(500),
        () -> ask("workspaceSymbols", "{\"query\":\"Greeter\"}"),
        rows -> rows.toString().contains("shop.Greeter"));

    List<String> features = NetBeansIdeToolsIT.companionFeatures();
    assertTrue(features.toString(), features.containsAll(NetBeansIdeToolsIT.CODE_FEATURES));

    int callLine = 13;
    int callColumn = column(MAIN, callLine, "greet(");
    String atCall = at(MAIN, callLine, callColumn);

    // The definition of a method call: the interface method's declaration, in another file.
    assertEquals(
        List.of("* shop.Greeter.greet (method) " + place(GREETER, 4, "greet")),
        ask("definition", atCall));

    // References across files, the declaration marked (and first); the column after the emoji
    // counts code points.
    List<String> references = ask("references", atCall);
    assertEquals(references.toString(), "* " + place(GREETER, 4, "greet"), references.get(0));
    assertEquals(
        List.of(place(MAIN, 13, "greet("), place(REPORT, 7, "greet")),
        references.subList(1, references.size()).stream().sorted().toList());
    assertTrue(place(REPORT, 7, "greet"), place(REPORT, 7, "greet").contains(":7:25: "));

    // Workspace symbols by part of a class name, in any case.
    assertEquals(
        List.of("shop.English (class) " + place(ENGLISH, 3, "English")),
        ask("workspaceSymbols", "{\"query\":\"ngli\"}"));

    // Document symbols: the class and its methods, at their names.
    assertEquals(
        List.of(
            "app.Main (class) " + place(MAIN, 6, "Main"),
            "app.Main.main (method) " + place(MAIN, 7, "main"),
            "app.Main.welcome (method) " + place(MAIN, 12, "welcome")),
        ask("documentSymbols", "{\"path\":\"" + MAIN + "\"}"));

    // Callers of the interface method, each at its call site; callees of welcome, as written.
    assertEquals(
        List.of(
            "app.Main.welcome (method) " + place(MAIN, 13, "greet("),
            "app.Report.line (method) " + place(REPORT, 7, "greet")),
        ask("callHierarchy", direction(GREETER, 4, "greet", "incoming")).stream()
            .sorted()
            .toList());
    assertEquals(
        List.of(
            "shop.Greeter.greet (method) " + place(MAIN, 13, "greet("),
            "java.lang.String.trim (method) " + place(MAIN, 13, "trim")),
        ask("callHierarchy", direction(MAIN, 12, "welcome", "outgoing")));

    // Supertypes of an implementation (Object has no source here); subtypes of the interface.
    assertEquals(
        List.of(
            "java.lang.Object (class)", "shop.Greeter (interface) " + place(GREETER, 3, "Greeter")),
        ask("typeHierarchy", direction(ENGLISH, 3, "English", "supertypes")));
    assertEquals(
        List.of(
            "shop.English (class) " + place(ENGLISH, 3, "English"),
            "shop.French (class) " + place(FRENCH, 3, "French")),
        ask("typeHierarchy", direction(GREETER, 3, "Greeter", "subtypes")));

    // Refusals: a position outside the file, a path outside the workspace, a file that is not
    // Java, a class rename that would rename its file, a name that is not a Java identifier.
    assertRefused("definition", at(MAIN, 99, 1), 400, "outside");
    assertRefused(
        "definition", "{\"path\":\"" + outside + "\",\"line\":1,\"column\":7}", 400, "workspace");
    assertRefused(
        "definition",
        "{\"path\":\"notes.txt\",\"line\":1,\"column\":1}",
        422,
        "NetBeans answers questions about code in Java files only");
    assertRefused(
        "rename",
        rename(ENGLISH, 3, column(ENGLISH, 3, "English"), "British"),
        422,
        "English.java");
    assertRefused(
        "rename", rename(MAIN, callLine, callColumn, "9lives"), 422, "not a valid Java identifier");

    // The editor's unsaved text is what NetBeans answers from: a line added above the call in
    // Report, not saved, moves its reference one line down.
    JEditorPane report = Ui.openInEditor(REPORT);
    Edt.call(
        () -> {
          report.getDocument().insertString(0, "// not saved\n", null);
          return null;
        });
    List<String> moved = ask("references", atCall);
    assertTrue(moved.toString(), moved.contains(place(REPORT, 7, "greet").replace(":7:", ":8:")));
    Ui.openInEditor(MAIN);

    Ui.openInEditor(MAIN);

    // A rename rejected changes nothing; accepted, it changes every file (the overriding methods
    // and the callers too), the open documents in place and saved.
    String rejected = proposeRename(callLine, callColumn, "salute");
    answerChange(false);
    assertEquals("rejected", Json.parse(awaitChange(rejected)).path("state").asString());
    assertUnchanged();
    now.put(REPORT, "// not saved\n" + FILES.get(REPORT));
    assertEquals(now.get(REPORT), Edt.call(() -> report.getText()));
    String accepted = proposeRename(callLine, callColumn, "salute");
    answerChange(true);
    Json end = Json.parse(awaitChange(accepted));
    assertEquals(end.toString(), "accepted", end.path("state").asString());
    List<String> changed = new ArrayList<>();
    end.path("files").forEach(f -> changed.add(f.asString()));
    assertEquals(
        FILES.keySet().stream().map(Path::toString).sorted().toList(),
        changed.stream().sorted().toList());
    assertRenamed("greet", "salute", atCall);
    assertEquals(now.get(REPORT), Edt.call(() -> report.getText()));

    // The same through the extension's tools, from each real CLI: the answers as the model reads
    // them, and a rename the user first rejects, then accepts.
    String from = "salute";
    for (String cli : List.of("qwen", "gemini")) {
      String to = cli.equals("qwen") ? "hail" : "greet";
      String relative = "\"path\":\"src/app/Main.java\",\"line\":13,\"column\":" + callColumn;
      String renameTo = "{" + relative + ",\"newName\":\"" + to + "\"}";
      String prompt =
          "Rename it. "
              + NetBeansIdeToolsIT.call(cli, "find_definition", "{" + relative + "}")
              + NetBeansIdeToolsIT.call(cli, "find_references", "{" + relative + "}")
              + NetBeansIdeToolsIT.call(cli, "workspace_symbols", "{\"query\":\"ngli\"}")
              + NetBeansIdeToolsIT.call(
                  cli, "call_hierarchy", direction(GREETER, 4, from, "incoming"))
              + NetBeansIdeToolsIT.call(
                  cli, "type_hierarchy", direction(GREETER, 3, "Greeter", "subtypes"))
              + NetBeansIdeToolsIT.call(
                  cli, "type_hierarchy", direction(ENGLISH, 3, "English", "supertypes"))
              + NetBeansIdeToolsIT.call(cli, "rename_symbol", renameTo)
              + NetBeansIdeToolsIT.call(cli, "rename_symbol", renameTo);
      CompletableFuture<Json> run =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return NetBeansIdeToolsIT.headless(cli, WORKSPACE, prompt);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      answerChange(false);
      assertUnchanged();
      answerChange(true);
      Json result = run.get(WAIT.toSeconds() * 3, TimeUnit.SECONDS);
      assertEquals(cli + ": " + result, 0, result.path("exitCode").asInt());
      List<String> answers = new ArrayList<>();
      result.path("toolResults").forEach(r -> answers.add(r.asString()));
      assertEquals(
          cli + ": " + answers + "\n" + result.path("stderr").asString(), 8, answers.size());
      String fromCall = from + "(";
      assertContains(
          cli,
          answers.get(0),
          "- shop.Greeter."
              + from
              + " (method) at "
              + said(GREETER, fromCall, from)
              + "  [declaration]");
      assertContains(cli, answers.get(1), "3 references:");
      assertContains(cli, answers.get(1), "- " + said(GREETER, fromCall, from) + "  [declaration]");
      assertContains(cli, answers.get(1), "- " + said(MAIN, fromCall, from));
      assertContains(cli, answers.get(1), "- " + said(REPORT, fromCall, from));
      assertContains(
          cli,
          answers.get(2),
          "- shop.English (class) at " + said(ENGLISH, "class English", "English"));
      assertContains(
          cli, answers.get(3), "- app.Main.welcome (method) at " + said(MAIN, fromCall, from));
      assertContains(
          cli, answers.get(3), "- app.Report.line (method) at " + said(REPORT, fromCall, from));
      assertContains(
          cli,
          answers.get(4),
          "- shop.English (class) at " + said(ENGLISH, "class English", "English"));
      assertContains(
          cli,
          answers.get(4),
          "- shop.French (class) at " + said(FRENCH, "class French", "French"));
      assertContains(
          cli,
          answers.get(5),
          "- shop.Greeter (interface) at " + said(GREETER, "interface", "Greeter"));
      assertContains(
          cli, answers.get(5), "- java.lang.Object (class) (no source in the workspace)");
      assertContains(cli, answers.get(6), "The user rejected the rename; no file was changed.");
      assertContains(cli, answers.get(7), "The user accepted the rename to " + to);
      for (Path f : FILES.keySet()) {
        assertContains(cli, answers.get(7), "- " + f);
      }
      assertRenamed(from, to, atCall);
      from = to;
    }
  }

  /** The files hold what they held. */
  private void assertUnchanged() throws Exception {
    for (Path f : FILES.keySet()) {
      assertEquals(f.toString(), now.get(f), Files.readString(f));
    }
  }

  /**
   * Every file now calls the method {@code to} where it called {@code from}, on disk and in the
   * open editors; NetBeans resolves the call by its new name, and the open files have no compile
   * error.
   */
  private void assertRenamed(String from, String to, String atCall) throws Exception {
    now.replaceAll((f, text) -> text.replace(from + "(", to + "("));
    assertUnchanged();
    assertEquals(
        List.of("* shop.Greeter." + to + " (method) " + place(GREETER, to + "(", to)),
        Await.until(
            WAIT,
            Duration.ofMillis(500),
            () -> askOrRefusal("definition", atCall),
            r -> r.toString().contains(to)));
    for (Path f : List.of(MAIN, REPORT)) {
      JEditorPane pane = Ui.openInEditor(f);
      assertEquals(now.get(f), Edt.call(pane::getText));
      Await.until(
          WAIT,
          Duration.ofMillis(500),
          () -> NetBeansIdeToolsIT.companionGet("/ide/diagnostics?path=" + f),
          body -> body.contains("\"path\"") && !body.contains("\"severity\":\"error\""));
    }
  }

  /** A place as the tools write it: the line's text stripped. */
  private String said(Path file, String lineHolds, String name) {
    return place(file, lineHolds, name).replaceFirst(": +", ": ");
  }

  private static void assertContains(String cli, String text, String part) {
    assertTrue(cli + ": " + text + "\nlacks: " + part, text.contains(part));
  }

  /** The rows of a code route's answer, each {@code [* ]name (kind) path:line:column: text}. */
  private static List<String> ask(String route, String body) throws Exception {
    HttpResponse<String> answer = NetBeansIdeToolsIT.companionSend("/ide/code/" + route, body);
    assertEquals(route + " " + body + ": " + answer.body(), 200, answer.statusCode());
    return rows(Json.parse(answer.body()));
  }

  /** The rows, or the refusal as one row: for awaiting an answer that may not be ready. */
  private static List<String> askOrRefusal(String route, String body) throws Exception {
    HttpResponse<String> answer = NetBeansIdeToolsIT.companionSend("/ide/code/" + route, body);
    return answer.statusCode() == 200
        ? rows(Json.parse(answer.body()))
        : List.of(answer.statusCode() + " " + answer.body());
  }

  private static List<String> rows(Json answer) {
    List<String> rows = new ArrayList<>();
    for (Json r : answer.path("results")) {
      List<String> parts = new ArrayList<>();
      if (r.has("name")) {
        parts.add(r.path("name").asString() + " (" + r.path("kind").asString() + ")");
      }
      if (r.has("path")) {
        parts.add(
            r.path("path").asString()
                + ":"
                + r.path("line").asInt()
                + ":"
                + r.path("column").asInt()
                + ": "
                + r.path("text").asString());
      }
      rows.add((r.path("declaration").asBoolean() ? "* " : "") + String.join(" ", parts));
    }
    return rows;
  }

  private static void assertRefused(String route, String body, int status, String why)
      throws Exception {
    HttpResponse<String> answer = NetBeansIdeToolsIT.companionSend("/ide/code/" + route, body);
    assertEquals(route + " " + body + ": " + answer.body(), status, answer.statusCode());
    assertTrue(answer.body(), answer.body().contains(why));
  }

  /** Proposes the rename through the route; its change's id. */
  private static String proposeRename(int line, int column, String newName) throws Exception {
    HttpResponse<String> answer =
        NetBeansIdeToolsIT.companionSend("/ide/code/rename", rename(MAIN, line, column, newName));
    assertEquals(answer.body(), 202, answer.statusCode());
    return Json.parse(answer.body()).path("change").asString();
  }

  private static String awaitChange(String id) throws Exception {
    return NetBeansIdeToolsIT.companionGet("/ide/code/changes/" + id + "?wait=60");
  }

  /**
   * Answers the one pending change as the user does in the review: through the companion's {@code
   * acceptChange}/{@code rejectChange}, which the module keeps to itself (hence reflection).
   */
  private static void answerChange(boolean accept) throws Exception {
    Class<?> service =
        Lookup.getDefault()
            .lookup(ClassLoader.class)
            .loadClass("dev.companion4j.netbeans.CompanionService");
    Method companionOf = service.getDeclaredMethod("companion");
    companionOf.setAccessible(true);
    Object companion = companionOf.invoke(service.getMethod("getDefault").invoke(null));
    List<?> pending =
        Await.until(
            WAIT,
            () -> (List<?>) companion.getClass().getMethod("pendingChanges").invoke(companion),
            l -> !l.isEmpty());
    assertEquals(pending.toString(), 1, pending.size());
    Object id = pending.get(0).getClass().getMethod("id").invoke(pending.get(0));
    if (accept) {
      companion
          .getClass()
          .getMethod("acceptChange", id.getClass(), Map.class)
          .invoke(companion, id, Map.of());
    } else {
      companion.getClass().getMethod("rejectChange", id.getClass()).invoke(companion, id);
    }
  }

  private static String at(Path file, int line, int column) {
    return "{\"path\":\"" + file + "\",\"line\":" + line + ",\"column\":" + column + "}";
  }

  private String direction(Path file, int line, String name, String direction) {
    return "{\"path\":\""
        + file
        + "\",\"line\":"
        + line
        + ",\"column\":"
        + column(file, line, name)
        + ",\"direction\":\""
        + direction
        + "\"}";
  }

  private static String rename(Path file, int line, int column, String newName) {
    return "{\"path\":\""
        + file
        + "\",\"line\":"
        + line
        + ",\"column\":"
        + column
        + ",\"newName\":\""
        + newName
        + "\"}";
  }

  /** {@code path:line:column: text} of the first {@code name} on that line of the file now. */
  private String place(Path file, int line, String name) {
    String text = now.get(file).split("\n")[line - 1];
    return file + ":" + line + ":" + (text.codePointCount(0, text.indexOf(name)) + 1) + ": " + text;
  }

  /** As {@link #place(Path, int, String)}, on the first line that holds {@code lineHolds}. */
  private String place(Path file, String lineHolds, String name) {
    List<String> lines = now.get(file).lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(lineHolds)) {
        return place(file, i + 1, name);
      }
    }
    throw new AssertionError(file + " has no line with " + lineHolds);
  }

  /** The 1-based column, in code points, of the first {@code part} on that line of the file now. */
  private int column(Path file, int line, String part) {
    String text = now.get(file).split("\n")[line - 1];
    return text.codePointCount(0, text.indexOf(part)) + 1;
  }

  private static String greeter(String name, String greeting) {
    return lines(
        "package shop;",
        "",
        "public class " + name + " implements Greeter {",
        "    @Override",
        "    public String greet(String name) {",
        "        return \"" + greeting + "\" + name;",
        "    }",
        "}");
  }

  private static String lines(String... lines) {
    return String.join("\n", lines) + "\n";
  }
}
