package dev.companion4j.cli.editors;

import static dev.companion4j.cli.editors.ConnectedClis.active;
import static dev.companion4j.cli.editors.ConnectedClis.cursor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.PortSquatter;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The Emacs package {@code editors/emacs/companion4j.el}, installed as its Commentary says for
 * Emacs 28 ({@code package-install-file}), with {@code companion4j} on the PATH as a release's
 * {@code install.sh} links it, in {@code emacs -nw} in a pseudo-terminal, typed at as a user types.
 * The package reaches the companion through {@code companion4j attach}: the real Qwen Code and
 * Gemini CLI IdeClients receive the file, point and region, the companion receives flymake's
 * diagnostics, proposals are reviewed, accepted with the user's edits, rejected by killing their
 * buffer and withdrawn by the CLI, a place the model shows opens in Emacs, and a CLI started from
 * Emacs gets the companion's variables. State is read back through {@code emacsclient} on a private
 * server socket.
 */
class EmacsPluginIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path EMACS = Path.of("/usr/bin/emacs");
  private static final Path EMACSCLIENT = Path.of("/usr/bin/emacsclient");

  private static final String GREETER =
      """
      package demo;

      import java.util.List;

      public final class Greeter {
        private int unusedCounter;

        public String greet(String name) {
          return "Hello, " + name;
        }

        public List<String> greetAll(List<String> names) {
          return names.stream().map(this::greet).toList();
        }
      }
      """;

  private static final String PROPOSED =
      """
      package demo;

      import java.util.List;

      public final class Greeter {
        private int unusedCounter;

        public String greet(String name) {
          if (name == null || name.isBlank()) {
            return "Hello, world";
          }
          return "Hello, " + name.strip();
        }

        public List<String> greetAll(List<String> names) {
          return names.stream().map(this::greet).toList();
        }
      }
      """;

  @TempDir Path temp;
  private ConnectedClis clis;
  private CompanionProcess companion;
  private CliDriver qwen;
  private CliDriver gemini;
  private Tmux emacs;
  private Path socket;
  private Map<String, String> variables;

  @AfterEach
  void stop() throws Exception {
    if (emacs != null) {
      try {
        emacsclient("(kill-emacs)");
      } catch (AssertionError | IOException e) {
        // Already gone; closing the terminal ends whatever is left.
      }
      emacs.close();
    }
    if (clis != null) {
      clis.close();
    }
  }

  @Test
  void emacsIsTheIdeOfBothClis() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("env"));
    Path greeter = env.file("src/main/java/demo/Greeter.java", GREETER);
    Path notes = env.file("docs/notes.md", "# Notes\n\nGreeter greets.\nIt strips names.\n");
    installPackage(env);

    clis = ConnectedClis.start(env);
    companion = clis.companion();
    qwen = clis.qwen();
    gemini = clis.gemini();
    startEmacs(env);

    // The mode line counts the CLIs the companion reported on connecting.
    await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 2 CLIs"));

    // (1) The file, point and region reach both CLIs; flymake's diagnostics reach the companion.
    emacs.press("C-x");
    emacs.press("C-f");
    emacs.type("src/main/java/demo/Greeter.java");
    emacs.press("Enter");
    clis.awaitActiveFile(greeter, WAIT);

    emacs.press("M-g");
    emacs.press("g");
    emacs.type("8");
    emacs.press("Enter");
    emacs.press("M-m");
    for (CliDriver cli : clis.both()) {
      JsonNode moved = cli.awaitContext(c -> cursor(c, 8, 3), WAIT);
      assertThat(active(moved).has("selectedText")).isFalse();
    }

    emacs.press("C-Space");
    emacs.press("M-f");
    for (CliDriver cli : clis.both()) {
      JsonNode selected =
          cli.awaitContext(
              c -> "public".equals(active(c).path("selectedText").asString(null)), WAIT);
      assertThat(active(selected).path("cursor").path("line").asInt()).isEqualTo(8);
    }
    emacs.press("C-g");
    for (CliDriver cli : clis.both()) {
      JsonNode cleared =
          cli.awaitContext(c -> cursor(c, 8, 9) && !active(c).has("selectedText"), WAIT);
      assertThat(active(cleared).has("selectedText")).isFalse();
    }

    JsonNode warning = await().atMost(WAIT).until(() -> diagnostic(greeter), d -> d != null);
    assertThat(warning.path("message").asString()).isEqualTo("unusedCounter is never read");
    assertThat(warning.path("severity").asString()).isEqualTo("warning");
    assertThat(warning.path("range").path("startLine").asInt()).isEqualTo(6);
    assertThat(warning.path("range").path("startCharacter").asInt()).isEqualTo(15);
    assertThat(warning.path("range").path("endCharacter").asInt()).isEqualTo(28);

    // Typed and typed away: the file is unsaved until it is saved, with the same text.
    emacs.type("x");
    emacs.press("BSpace");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":true"));
    emacs.press("C-x");
    emacs.press("C-s");
    await()
        .atMost(WAIT)
        .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":false"));

    // (2) Qwen's proposal opens beside the file; edited and accepted, Qwen gets the edited text.
    CompletableFuture<JsonNode> accepted =
        qwen.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    await().atMost(WAIT).until(() -> proposalFiles().equals(List.of(greeter.toString())));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              String screen = emacs.screen();
              return screen.contains("*companion4j: src/main/java/demo/Greeter.java*")
                  && screen.contains("+    if (name == null || name.isBlank()) {")
                  && screen.contains("C4J 2 CLIs · 1 to review");
            });
    ConnectedClis.screenshot(emacs, "emacs-review");

    emacs.press("C-s");
    emacs.type("world");
    emacs.press("Enter");
    emacs.press("M-BSpace");
    emacs.type("stranger");
    await().atMost(WAIT).until(() -> emacs.screen().contains("+      return \"Hello, stranger\";"));
    emacs.press("C-c");
    emacs.press("C-c");
    JsonNode answer = CliDriver.await(accepted, WAIT);
    assertThat(answer.path("status").asString()).as(answer.toString()).isEqualTo("accepted");
    assertThat(answer.path("content").asString())
        .isEqualTo(PROPOSED.replace("Hello, world", "Hello, stranger"));
    await().atMost(WAIT).until(() -> proposalFiles().isEmpty());
    assertThat(greeter).as("the package never writes the file; the CLI does").hasContent(GREETER);

    // Gemini's proposal, rejected by killing its buffer.
    CompletableFuture<JsonNode> rejected =
        gemini.send(
            "openDiff",
            Map.of(
                "filePath", greeter.toString(), "newContent", GREETER.replace("Hello, ", "Hi, ")));
    await().atMost(WAIT).until(() -> proposalFiles().equals(List.of(greeter.toString())));
    await().atMost(WAIT).until(() -> emacs.screen().contains("+    return \"Hi, \" + name;"));
    emacs.press("C-x");
    emacs.press("k");
    emacs.press("Enter");
    assertThat(CliDriver.await(rejected, WAIT).path("status").asString()).isEqualTo("rejected");
    await().atMost(WAIT).until(() -> proposalFiles().isEmpty());
    assertThat(greeter).hasContent(GREETER);

    // A proposal Qwen withdraws closes in Emacs, which says why.
    qwen.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    await().atMost(WAIT).until(() -> proposalFiles().equals(List.of(greeter.toString())));
    qwen.call("closeDiff", Map.of("filePath", greeter.toString()));
    await().atMost(WAIT).until(() -> proposalFiles().isEmpty());
    assertThat(emacsclient("(with-current-buffer \"*Messages*\" (buffer-string))"))
        .contains("the proposal for src/main/java/demo/Greeter.java closed: withdrawn by the CLI");
    await()
        .atMost(WAIT)
        .until(
            () -> emacs.screen().contains("C4J 2 CLIs") && !emacs.screen().contains("to review"));
    // Neither the proposal's buffers nor the new file's are left; attach's log stays.
    assertThat(emacsclient("(buffer-list)")).doesNotContain("*companion4j:", "*companion4j diff:");

    // (3) A place the model shows opens in Emacs, at that line and character.
    assertThat(
            companion
                .post("/ide/open", Map.of("path", notes.toString(), "line", 3, "character", 2))
                .statusCode())
        .isEqualTo(200);
    String where =
        "(with-selected-window (selected-window)"
            + " (list buffer-file-name (line-number-at-pos) (1+ (- (point) (line-beginning-position)))))";
    await().atMost(WAIT).until(() -> emacsclient(where).equals("(\"" + notes + "\" 3 2)"));
    for (CliDriver cli : clis.both()) {
      cli.awaitContext(
          c -> active(c).path("path").asString("").equals(notes.toString()) && cursor(c, 3, 2),
          WAIT);
    }

    // The package's one process has no token among its arguments, nor has any other.
    assertThat(ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse("")))
        .anyMatch(c -> c.endsWith(" attach --workspace " + env.workspace()))
        .noneMatch(c -> c.contains(companion.token()));

    // (4) A CLI started from Emacs gets the variables that connect it to this companion.
    Path fakeCli =
        env.file(
            "fake-cli.sh",
            "#!/bin/sh\necho \"port=$QWEN_CODE_IDE_SERVER_PORT gemini=$GEMINI_CLI_IDE_SERVER_PORT\"\nexec sleep 60\n");
    fakeCli.toFile().setExecutable(true);
    emacs.press("M-x");
    emacs.type("companion4j-run");
    emacs.press("Enter");
    emacs.press("C-a");
    emacs.press("C-k");
    emacs.type("./fake-cli.sh");
    emacs.press("Enter");
    await()
        .atMost(WAIT)
        .until(
            () ->
                emacs
                    .screen()
                    .contains("port=" + companion.port() + " gemini=" + companion.port()));
  }

  @Test
  void aServerOnADeadCompanionsPortIsSentNoTokenAndEmacsSaysNoCompanionServes() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("squatted"));
    Path cli = env.file("fake-cli.sh", "#!/bin/sh\necho \"node=[$NODE_OPTIONS]\"\nexec sleep 60\n");
    cli.toFile().setExecutable(true);
    installPackage(env);
    try (PortSquatter squatter = PortSquatter.plantedIn(env)) {
      startEmacs(env);
      await().atMost(WAIT).until(() -> !squatter.requests().isEmpty());
      String run =
          emacsclient(
              "(condition-case e (progn (companion4j-run \"./fake-cli.sh\") \"started\")"
                  + " (error (error-message-string e)))");
      String none = "no companion serves " + env.workspace();

      assertThat(squatter.requests())
          .as("what the squatter received")
          .noneMatch(PortSquatter.Request::carriesTheToken);
      assertThat(squatter.wasChallenged()).isTrue();
      assertThat(run).contains(none);
      assertThat(emacsclient("(companion4j-status)")).contains(none);
      await().atMost(WAIT).until(() -> emacs.screen().contains("C4J off"));
      assertThat(emacs.screen()).doesNotContain("node=[");
      assertThat(proposalFiles()).isEmpty();
      assertThat(emacsclient("(mapcar #'buffer-name (buffer-list))")).doesNotContain("planted");
      assertThat(squatter.requests()).noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void anEditorWhoseCompanionWasKilledNeverFollowsTheNextOwnerOfItsPort() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("killed"));
    installPackage(env);
    CompanionProcess crashed = CompanionProcess.start(env);
    try {
      startEmacs(env);
      await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 0 CLIs"));
      crashed.kill();
      // Another user binds the freed port; the editor's next look re-reads the lock the crash left.
      try (PortSquatter squatter = PortSquatter.listeningOn(env, crashed.port())) {
        String none = "no companion serves " + env.workspace();
        await()
            .atMost(WAIT)
            .until(
                () ->
                    emacsclient("(companion4j-status)").contains(none)
                        || !squatter.requests().isEmpty());
        assertThat(squatter.requests())
            .as("the lock's process is gone: its port is not even asked")
            .isEmpty();
        assertThat(emacs.screen()).contains("C4J off");
      }
    } finally {
      crashed.close();
    }
  }

  @Test
  void autostartRunsACompanionThatEndsWithEmacs() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("alone"));
    installPackage(env, "(setq companion4j-autostart t)");
    startEmacs(env);
    await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 0 CLIs"));
    assertThat(emacsclient("(companion4j-status)"))
        .contains("(started by this Emacs), workspace " + env.workspace());
    assertThat(locks(env)).hasSize(1);

    // Emacs quits: attach's input ends, and the companion it runs stops and removes its files.
    try {
      emacsclient("(kill-emacs)");
    } catch (AssertionError | IOException e) {
      // Emacs may end before emacsclient hears back.
    }
    await().atMost(WAIT).until(() -> locks(env).isEmpty());
  }

  @Test
  void questionsAboutCodeAreAnsweredThroughXrefAndTheOthersRefusedInEmacsWords() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("code"));
    Path main =
        env.file(
            "src/main.c",
            "int helper(void) { return 1; }\n\nint main(void) { return helper(); }\n");
    Path other =
        env.file("src/other.c", "int helper(void);\nint twice(void) { return helper() * 2; }\n");
    // The tags table a C project keeps with its sources, made by the etags Emacs ships.
    Process etags =
        new ProcessBuilder("etags", "-o", "TAGS", "main.c", "other.c")
            .directory(main.getParent().toFile())
            .start();
    assertThat(etags.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(etags.exitValue()).isZero();
    installPackage(env);
    try (CompanionProcess served = CompanionProcess.start(env)) {
      startEmacs(env);
      await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 0 CLIs"));

      HttpResponse<String> definition =
          served.post(
              "/ide/code/definition", Map.of("path", "src/main.c", "line", 3, "column", 27));
      assertThat(definition.statusCode()).as(definition.body()).isEqualTo(200);
      JsonNode declared = CompanionProcess.JSON.readTree(definition.body()).path("results").get(0);
      assertThat(declared.path("path").asString()).isEqualTo(main.toString());
      assertThat(declared.path("line").asInt()).isEqualTo(1);
      assertThat(declared.path("text").asString()).isEqualTo("int helper(void) { return 1; }");

      HttpResponse<String> references =
          served.post(
              "/ide/code/references", Map.of("path", other.toString(), "line", 2, "column", 27));
      assertThat(references.statusCode()).as(references.body()).isEqualTo(200);
      List<String> places = new java.util.ArrayList<>();
      for (JsonNode r : CompanionProcess.JSON.readTree(references.body()).path("results")) {
        places.add(
            Path.of(r.path("path").asString()).getFileName()
                + ":"
                + r.path("line").asInt()
                + ":"
                + r.path("column").asInt());
      }
      assertThat(places).contains("main.c:1:5", "main.c:3:25", "other.c:2:26");

      HttpResponse<String> rename =
          served.post(
              "/ide/code/rename",
              Map.of("path", "src/main.c", "line", 1, "column", 5, "newName", "assist"));
      assertThat(rename.statusCode()).as(rename.body()).isEqualTo(422);
      assertThat(rename.body())
          .contains(
              "Emacs answers definition and references through xref; it has no rename to give");
      assertThat(main)
          .as("nothing was renamed")
          .hasContent("int helper(void) { return 1; }\n\nint main(void) { return helper(); }\n");
      assertThat(emacsclient("(mapcar #'buffer-file-name (buffer-list))"))
          .as("the files opened to answer are closed again")
          .doesNotContain("other.c");
    }
  }

  /** The companions' lock files in {@code env}. */
  private static List<Path> locks(CliEnvironment env) throws IOException {
    Path dir = env.qwenHome().resolve("ide");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".lock")).toList();
    }
  }

  /** Installs the package into the private HOME as its Commentary says for Emacs 28, offline. */
  static void install(CliEnvironment env, Path log) throws Exception {
    if (!Files.isExecutable(EMACS)) {
      throw new IllegalStateException(
          "No " + EMACS + "; the test command installs Debian's emacs-nox");
    }
    Path source = TestPeers.repoRoot().resolve("editors/emacs/companion4j.el");
    ProcessBuilder pb =
        new ProcessBuilder(
                EMACS.toString(),
                "--batch",
                "--eval",
                "(progn (require 'package) (setq package-archives nil) (package-initialize)"
                    + " (package-install-file \""
                    + source
                    + "\"))")
            .directory(env.workspace().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    Process install = pb.start();
    assertThat(install.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(install.exitValue()).as(Files.readString(log)).isZero();
    assertThat(env.home().resolve(".emacs.d/elpa/companion4j-1.0.0/companion4j.elc"))
        .as(Files.readString(log))
        .isRegularFile();
  }

  /**
   * The package installed, {@code companion4j} on the PATH as {@code install.sh} links it into
   * {@code ~/.local/bin}, and an init file that turns the package on and lets the test ask Emacs.
   */
  private void installPackage(CliEnvironment env) throws Exception {
    installPackage(env, "");
  }

  private void installPackage(CliEnvironment env, String settings) throws Exception {
    install(env, temp.resolve("install.log"));
    Path bin = Files.createDirectories(env.home().resolve(".local/bin"));
    Path launcher =
        Files.writeString(
            bin.resolve("companion4j"),
            "#!/bin/sh\nexec " + String.join(" ", CompanionProcess.command()) + " \"$@\"\n");
    launcher.toFile().setExecutable(true);
    variables = new LinkedHashMap<>(env.variables());
    variables.put("PATH", bin + ":" + variables.get("PATH"));
    Path serverDir = temp.resolve("emacs-server");
    socket = serverDir.resolve("server");
    Files.writeString(
        env.home().resolve(".emacs.d/init.el"),
        """
        (setq inhibit-startup-screen t)
        (menu-bar-mode -1)
        (load-theme 'modus-vivendi t)
        (setq server-socket-dir "%s")
        (server-start)
        ;; A small checker of the kind a project has: it flags a field nobody reads.
        (defun demo-unread-field-backend (report-fn &rest _)
          (let (diagnostics)
            (save-excursion
              (goto-char (point-min))
              (while (search-forward "unusedCounter" nil t)
                (push (flymake-make-diagnostic (current-buffer) (match-beginning 0) (match-end 0)
                                               :warning "unusedCounter is never read")
                      diagnostics)))
            (funcall report-fn diagnostics)))
        (add-hook 'java-mode-hook
                  (lambda ()
                    (setq-local flymake-diagnostic-functions (list #'demo-unread-field-backend))
                    (flymake-mode 1)))
        %s
        (companion4j-mode 1)
        """
            .formatted(serverDir, settings));
  }

  private void startEmacs(CliEnvironment env) throws IOException {
    Map<String, String> terminal = new LinkedHashMap<>(variables);
    terminal.put("TERM", "screen-256color");
    terminal.put("LANG", "C.UTF-8");
    emacs = Tmux.start(List.of(EMACS.toString(), "-nw"), env.workspace(), terminal);
    await().atMost(WAIT).until(() -> Files.exists(socket) || emacs.exitStatus() != null);
    assertThat(emacs.exitStatus()).as(emacs.screen()).isNull();
  }

  /** Evaluates {@code expression} in the running Emacs and returns what it printed. */
  private String emacsclient(String expression) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(EMACSCLIENT.toString(), "-s", socket.toString(), "--eval", expression)
            .redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().putAll(variables);
    Process client = pb.start();
    String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(client.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(client.exitValue()).as("emacsclient --eval %s: %s", expression, out).isZero();
    return out.strip();
  }

  /** The files of the proposals open in Emacs, by the package's own query. */
  private List<String> proposalFiles() throws IOException, InterruptedException {
    String out =
        emacsclient(
            "(json-encode (vconcat (mapcar (lambda (p) (plist-get p :file)) (companion4j-proposals))))");
    // emacsclient prints the string as a Lisp string: the JSON text in quotes, escaped.
    List<String> files = new java.util.ArrayList<>();
    for (JsonNode file :
        CompanionProcess.JSON.readTree(CompanionProcess.JSON.readTree(out).asString())) {
      files.add(file.asString());
    }
    return files;
  }

  /** The first diagnostic the companion holds for {@code file}, or null. */
  private JsonNode diagnostic(Path file) {
    JsonNode state = CompanionProcess.JSON.readTree(companion.get("/editor/state").body());
    for (JsonNode f : state.path("diagnostics")) {
      if (f.path("path").asString().equals(file.toString()) && !f.path("diagnostics").isEmpty()) {
        return f.path("diagnostics").get(0);
      }
    }
    return null;
  }
}
