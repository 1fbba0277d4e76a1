package dev.companion4j.netbeans;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.swing.JEditorPane;
import javax.swing.text.JTextComponent;
import javax.swing.text.StyledDocument;
import junit.framework.Test;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.cookies.EditorCookie;
import org.openide.filesystems.FileUtil;
import org.openide.loaders.DataObject;
import org.openide.text.NbDocument;

/**
 * The extension's IDE tools answered by a booted NetBeans with Java support: the real Qwen Code
 * 0.24.4 and Gemini CLI 0.61.0 run headless against a fake model that calls {@code
 * get_diagnostics}, {@code get_open_editors} and {@code open_file} through {@code companion4j mcp}.
 * The CLIs run in a child JVM ({@code HeadlessRun} of the test kit, which a booted NetBeans hides
 * from its tests) that meets this IDE's companion through the same HOME, QWEN_HOME and TMPDIR.
 */
public class NetBeansIdeToolsIT extends NbTestCase {
  /** The features the companion declares with NetBeans' Java support and its Java module. */
  static final List<String> CODE_FEATURES =
      List.of(
          "definition",
          "references",
          "documentSymbols",
          "workspaceSymbols",
          "callHierarchy",
          "typeHierarchy",
          "rename");

  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 120));
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path REPO = Path.of(System.getProperty("companion4j.testPeers")).getParent();
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("tools");
  private static final Path BROKEN = WORKSPACE.resolve("src/app/Broken.java");
  private static final Path EDITED = WORKSPACE.resolve("src/app/Edited.java");

  /** A Java file with one javac error, line 5, column 21: a String assigned to an int. */
  static final String BROKEN_TEXT =
      String.join(
          "\n",
          "package app;",
          "",
          "public class Broken {",
          "    void run() {",
          "        int count = \"three\";",
          "    }",
          "",
          "    String name() {",
          "        return \"broken\";",
          "    }",
          "}",
          "");

  public NetBeansIdeToolsIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansIdeToolsIT.class)
        .addTest("testJavaErrorsUnsavedFilesAndOpeningAPlaceReachBothClis")
        .suite();
  }

  public void testJavaErrorsUnsavedFilesAndOpeningAPlaceReachBothClis() throws Exception {
    Files.createDirectories(BROKEN.getParent());
    Files.writeString(WORKSPACE.resolve(TestProjectFactory.MARKER), "");
    Files.writeString(BROKEN, BROKEN_TEXT);
    Files.writeString(EDITED, "package app;\n\npublic class Edited {\n}\n");
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(WORKSPACE.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);

    // A change not saved: NetBeans marks the file modified, the companion reports it dirty.
    JEditorPane edited = Ui.openInEditor(EDITED);
    Edt.call(
        () -> {
          StyledDocument doc = (StyledDocument) edited.getDocument();
          NbDocument.runAtomicAsUser(
              doc,
              () -> {
                try {
                  doc.insertString(doc.getLength(), "// not saved yet\n", null);
                } catch (javax.swing.text.BadLocationException e) {
                  throw new IllegalStateException(e);
                }
              });
          return null;
        });
    Ui.openInEditor(BROKEN);
    // NetBeans parses the new file (and indexes the JDK on first use) before its errors exist.
    Await.until(
        WAIT,
        Duration.ofMillis(500),
        () -> companionGet("/ide/diagnostics?path=" + BROKEN),
        body -> body.contains("incompatible types"));
    // The CLIs' tools find the companion by its discovery files, rewritten once the project's
    // opening reached the companion: that may come after the errors.
    Await.until(
        WAIT, () -> newestLock().path("workspacePath").asString(), WORKSPACE.toString()::equals);

    for (String cli : List.of("qwen", "gemini")) {
      int line = cli.equals("qwen") ? 9 : 8;
      Edt.call(
          () -> {
            caretPane(BROKEN).setCaretPosition(0);
            return null;
          });
      Json run =
          headless(
              cli,
              WORKSPACE,
              "Fix the errors. "
                  + call(cli, "get_diagnostics", "{\"path\":\"src/app/Broken.java\"}")
                  + call(cli, "get_open_editors", "{}")
                  + call(
                      cli,
                      "open_file",
                      "{\"path\":\"src/app/Broken.java\",\"line\":" + line + ",\"column\":9}"));
      assertEquals(cli + ": " + run, 0, run.path("exitCode").asInt());
      List<String> results = new ArrayList<>();
      run.path("toolResults").forEach(r -> results.add(r.asString()));
      assertEquals(cli + ": " + results + "\n" + run.path("stderr").asString(), 3, results.size());

      assertTrue(cli + ": " + results.get(0), results.get(0).contains(BROKEN + " (1 error)"));
      assertTrue(
          cli + ": " + results.get(0),
          results
              .get(0)
              .contains(
                  "line 5, column 21: error: incompatible types: String cannot be converted to int"));
      assertTrue(
          cli + ": " + results.get(1),
          results
              .get(1)
              .contains(
                  "- "
                      + EDITED
                      + " (unsaved changes: the file on disk is older than the editor's text)"));
      assertTrue(
          cli + ": " + results.get(2),
          results
              .get(2)
              .contains("Opened Broken.java at line " + line + ", column 9 in Apache NetBeans"));
      int[] caret =
          Await.until(WAIT, () -> Edt.call(() -> caretOf(caretPane(BROKEN))), c -> c[0] == line);
      assertEquals(cli, 9, caret[1]);
    }
  }

  /** The tool-call directive of the fake model for one of the extension's tools. */
  static String call(String cli, String tool, String arguments) {
    return cli.equals("qwen")
        ? "[[call tool_call {\"name\":\"mcp__companion4j__"
            + tool
            + "\",\"arguments\":"
            + arguments
            + "}]]"
        : "[[call mcp_companion4j_" + tool + " " + arguments + "]]";
  }

  /**
   * One headless run of {@code cli} in {@code workspace}, with {@code companion4j mcp} as its MCP
   * server.
   */
  static Json headless(String cli, Path workspace, String prompt) throws Exception {
    Path testkit = REPO.resolve("testkit/target");
    String classpath =
        testkit.resolve("classes")
            + java.io.File.pathSeparator
            + Files.readString(testkit.resolve("classpath.txt")).strip();
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        List.of(
            java,
            "-Dcompanion4j.testPeers=" + REPO.resolve("test-peers"),
            "-cp",
            classpath,
            "dev.companion4j.testkit.HeadlessRun",
            cli,
            workspace.toString(),
            prompt,
            java,
            "-jar",
            REPO.resolve("cli/target/companion4j.jar").toString(),
            "mcp");
    Path log =
        Files.createDirectories(BUILD.resolve("cli-logs")).resolve("headless-" + cli + ".log");
    Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(cli + " did not finish; see " + log);
    }
    String text = new String(out, StandardCharsets.UTF_8).strip();
    if (p.exitValue() != 0 || text.isEmpty()) {
      throw new AssertionError(
          cli + " run failed (" + p.exitValue() + "): " + text + "\n" + Files.readString(log));
    }
    return Json.parse(text.lines().reduce((a, b) -> b).orElseThrow());
  }

  /** GET from this IDE's companion, found through its Qwen Code lock file. */
  static String companionGet(String path) throws Exception {
    return companionSend(path, null).body();
  }

  /** The features this IDE's companion declares in {@code GET /ide/status}. */
  static List<String> companionFeatures() throws Exception {
    List<String> features = new ArrayList<>();
    Json.parse(companionGet("/ide/status"))
        .path("features")
        .forEach(f -> features.add(f.asString()));
    return features;
  }

  /**
   * A request to this IDE's companion, found through its Qwen Code lock file: a GET, or a POST of
   * {@code json}.
   */
  static java.net.http.HttpResponse<String> companionSend(String path, String json)
      throws Exception {
    Json file = newestLock();
    java.net.http.HttpRequest.Builder request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + file.path("port").asInt() + path))
            .header("Authorization", "Bearer " + file.path("authToken").asString());
    if (json != null) {
      request
          .header("Content-Type", "application/json")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json));
    }
    return java.net.http.HttpClient.newHttpClient()
        .send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /** This IDE's companion's newest Qwen Code lock file. */
  private static Json newestLock() throws IOException {
    Path dir = Path.of(System.getenv("QWEN_HOME"), "ide");
    try (java.util.stream.Stream<Path> locks = Files.list(dir)) {
      Path lock =
          locks
              .filter(f -> f.getFileName().toString().endsWith(".lock"))
              .max(java.util.Comparator.comparingLong(f -> f.toFile().lastModified()))
              .orElseThrow();
      return Json.parse(Files.readString(lock));
    }
  }

  private static JEditorPane caretPane(Path file) throws IOException {
    JEditorPane[] panes =
        DataObject.find(FileUtil.toFileObject(file.toFile()))
            .getLookup()
            .lookup(EditorCookie.class)
            .getOpenedPanes();
    return panes[0];
  }

  /** The caret's 1-based line and column. */
  private static int[] caretOf(JTextComponent pane) {
    StyledDocument doc = (StyledDocument) pane.getDocument();
    int dot = pane.getCaretPosition();
    return new int[] {
      NbDocument.findLineNumber(doc, dot) + 1, NbDocument.findLineColumn(doc, dot) + 1
    };
  }
}
