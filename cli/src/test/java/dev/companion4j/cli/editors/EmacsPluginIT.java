package dev.companion4j.cli.editors;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.companion4j.cli.editors.ConnectedClis.active;
import static dev.companion4j.cli.editors.ConnectedClis.cursor;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.PortSquatter;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliDriver;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
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
 * Emacs 28 ({@code package-install-file}), in {@code emacs -nw} in a pseudo-terminal, typed at as
 * a user types: the real Qwen Code and Gemini CLI IdeClients receive the file, point and region,
 * the companion receives flymake's diagnostics, proposals are reviewed, accepted with the user's
 * edits, rejected by killing their buffer and withdrawn by the CLI, a place the model shows opens
 * in Emacs, and a CLI started from Emacs gets the companion's variables. State is read back
 * through {@code emacsclient} on a private server socket.
 */
class EmacsPluginIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path EMACS = Path.of("/usr/bin/emacs");
  private static final Path EMACSCLIENT = Path.of("/usr/bin/emacsclient");

  private static final String GREETER = """
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

  private static final String PROPOSED = """
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
    variables = new LinkedHashMap<>(env.variables());
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
    for (CliDriver cli : clis.both()) {
      JsonNode focused = cli.awaitContext(c -> active(c).path("path").asString("").equals(greeter.toString()), WAIT);
      assertThat(active(focused).path("path").asString()).as(cli.cli().name()).isEqualTo(greeter.toString());
    }

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
      JsonNode selected = cli.awaitContext(c -> "public".equals(active(c).path("selectedText").asString(null)), WAIT);
      assertThat(active(selected).path("cursor").path("line").asInt()).isEqualTo(8);
    }
    emacs.press("C-g");
    for (CliDriver cli : clis.both()) {
      JsonNode cleared = cli.awaitContext(c -> cursor(c, 8, 9) && !active(c).has("selectedText"), WAIT);
      assertThat(active(cleared).has("selectedText")).isFalse();
    }

    JsonNode warning = await().atMost(WAIT).until(() -> diagnostic(greeter), d -> d != null);
    assertThat(warning.path("message").asString()).isEqualTo("unusedCounter is never read");
    assertThat(warning.path("severity").asString()).isEqualTo("warning");
    assertThat(warning.path("range").path("startLine").asInt()).isEqualTo(6);
    assertThat(warning.path("range").path("startCharacter").asInt()).isEqualTo(15);
    assertThat(warning.path("range").path("endCharacter").asInt()).isEqualTo(28);

    // (2) Qwen's proposal opens beside the file; edited and accepted, Qwen gets the edited text.
    CompletableFuture<JsonNode> accepted =
        qwen.send("openDiff", Map.of("filePath", greeter.toString(), "newContent", PROPOSED));
    await().atMost(WAIT).until(() -> proposalFiles().equals(List.of(greeter.toString())));
    await().atMost(WAIT).until(() -> {
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
    assertThat(answer.path("content").asString()).isEqualTo(PROPOSED.replace("Hello, world", "Hello, stranger"));
    await().atMost(WAIT).until(() -> proposalFiles().isEmpty());
    assertThat(greeter).as("the package never writes the file; the CLI does").hasContent(GREETER);

    // Gemini's proposal, rejected by killing its buffer.
    CompletableFuture<JsonNode> rejected = gemini.send(
        "openDiff", Map.of("filePath", greeter.toString(), "newContent", GREETER.replace("Hello, ", "Hi, ")));
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
    await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 2 CLIs") && !emacs.screen().contains("to review"));
    assertThat(emacsclient("(buffer-list)")).doesNotContain("*companion4j");

    // (3) A place the model shows opens in Emacs, at that line and character.
    assertThat(companion.post("/ide/open", Map.of("path", notes.toString(), "line", 3, "character", 2)).statusCode())
        .isEqualTo(200);
    String where = "(with-selected-window (selected-window)"
        + " (list buffer-file-name (line-number-at-pos) (1+ (- (point) (line-beginning-position)))))";
    await().atMost(WAIT).until(() -> emacsclient(where).equals("(\"" + notes + "\" 3 2)"));
    for (CliDriver cli : clis.both()) {
      cli.awaitContext(c -> active(c).path("path").asString("").equals(notes.toString()) && cursor(c, 3, 2), WAIT);
    }

    // (4) A CLI started from Emacs gets the variables that connect it to this companion.
    Path fakeCli = env.file("fake-cli.sh",
        "#!/bin/sh\necho \"port=$QWEN_CODE_IDE_SERVER_PORT gemini=$GEMINI_CLI_IDE_SERVER_PORT\"\nexec sleep 60\n");
    fakeCli.toFile().setExecutable(true);
    emacs.press("M-x");
    emacs.type("companion4j-run");
    emacs.press("Enter");
    emacs.press("C-a");
    emacs.press("C-k");
    emacs.type("./fake-cli.sh");
    emacs.press("Enter");
    await().atMost(WAIT).until(() -> emacs.screen().contains("port=" + companion.port() + " gemini=" + companion.port()));
  }

  @Test
  void aServerOnADeadCompanionsPortIsSentNoTokenAndTheCompanionIsSaidGone() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("squatted"));
    Path cli = env.file("fake-cli.sh", "#!/bin/sh\necho \"node=[$NODE_OPTIONS]\"\nexec sleep 60\n");
    cli.toFile().setExecutable(true);
    variables = new LinkedHashMap<>(env.variables());
    installPackage(env);
    try (PortSquatter squatter = PortSquatter.plantedIn(env)) {
      startEmacs(env);
      await().atMost(WAIT).until(() -> !squatter.requests().isEmpty());
      String run = emacsclient("(condition-case e (progn (companion4j-run \"./fake-cli.sh\") \"started\")"
          + " (error (error-message-string e)))");
      String gone = "the companion on port " + squatter.port() + " is gone (another process holds its port)";

      assertThat(squatter.requests()).as("what the squatter received").noneMatch(PortSquatter.Request::carriesTheToken);
      assertThat(squatter.wasChallenged()).isTrue();
      assertThat(run).contains(gone);
      assertThat(emacsclient("(companion4j-status)")).contains(gone);
      await().atMost(WAIT).until(() -> emacs.screen().contains("C4J gone"));
      assertThat(emacs.screen()).doesNotContain("node=[");
      assertThat(proposalFiles()).isEmpty();
      assertThat(emacsclient("(mapcar #'buffer-name (buffer-list))")).doesNotContain("planted");
      assertThat(squatter.requests()).noneMatch(PortSquatter.Request::carriesTheToken);
    }
  }

  @Test
  void anEditorWhoseCompanionWasKilledNeverFollowsTheNextOwnerOfItsPort() throws Exception {
    CliEnvironment env = CliEnvironment.in(temp.resolve("killed"));
    variables = new LinkedHashMap<>(env.variables());
    installPackage(env);
    CompanionProcess crashed = CompanionProcess.start(env);
    try {
      startEmacs(env);
      await().atMost(WAIT).until(() -> emacs.screen().contains("C4J 0 CLIs"));
      crashed.kill();
      // Another user binds the freed port; the editor's retry re-reads the lock the crash left.
      try (PortSquatter squatter = PortSquatter.listeningOn(env, crashed.port())) {
        String gone = "the companion on port " + crashed.port() + " is gone (its process " + crashed.pid() + " ended)";
        await().atMost(WAIT).until(() -> emacs.screen().contains("C4J gone") || !squatter.requests().isEmpty());
        assertThat(squatter.requests()).as("the lock's process is gone: its port is not even asked").isEmpty();
        assertThat(emacsclient("(companion4j-status)")).contains(gone);
      }
    } finally {
      crashed.close();
    }
  }

  @Test
  void malformedIdsPathsAndTerminalVariablesFromTheCompanionAreRefused() throws Exception {
    Path log = temp.resolve("batch.log");
    String out = batch("""
        (progn
          (companion4j--open-proposal
           '((id . "0123456789abcdef/reject HTTP/1.0\r\nX-Injected: 1\r\n\r\nGET /x") (filePath . "/tmp/a.txt") (newContent . "x")))
          (companion4j--open-proposal '((id . "0123456789abcdef") (filePath . "/tmp/a\nb.txt") (newContent . "x")))
          (companion4j--open-file '((path . "/tmp/a\rb.txt")))
          (princ (format "open:%d\n" (length (companion4j-proposals))))
          (princ (format "kept:%S\n" (companion4j--terminal-variables
            "{\\"NODE_OPTIONS\\":\\"--require /tmp/evil.js\\",\\"QWEN_CODE_IDE_SERVER_PORT\\":\\"41233\\",\\"GEMINI_CLI_IDE_SERVER_PORT\\":\\"4\\\\n1\\",\\"GEMINI_CLI_IDE_WORKSPACE_PATH\\":\\"/w\\"}"))))
        """, log);
    assertThat(out).contains(
        "refused a proposal whose id is not sixteen hex digits",
        "refused a proposal whose file is not an absolute path without control characters",
        "refused to open a file that is not an absolute path without control characters",
        "open:0",
        "kept:((\"QWEN_CODE_IDE_SERVER_PORT=41233\" \"GEMINI_CLI_IDE_WORKSPACE_PATH=/w\") \"GEMINI_CLI_IDE_SERVER_PORT\" \"NODE_OPTIONS\")");
  }

  /** Evaluates {@code expression} in {@code emacs --batch} with the package loaded; its output. */
  private static String batch(String expression, Path log) throws Exception {
    Path source = TestPeers.repoRoot().resolve("editors/emacs/companion4j.el");
    Process emacs = new ProcessBuilder(EMACS.toString(), "--batch", "-Q", "-l", source.toString(), "--eval", expression)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    assertThat(emacs.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return Files.readString(log);
  }

  /** Installs the package into the private HOME as its Commentary says for Emacs 28, offline. */
  static void install(CliEnvironment env, Path log) throws Exception {
    if (!Files.isExecutable(EMACS)) {
      throw new IllegalStateException("No " + EMACS + "; the test command installs Debian's emacs-nox");
    }
    Path source = TestPeers.repoRoot().resolve("editors/emacs/companion4j.el");
    ProcessBuilder pb = new ProcessBuilder(
            EMACS.toString(), "--batch",
            "--eval", "(progn (require 'package) (setq package-archives nil) (package-initialize)"
                + " (package-install-file \"" + source + "\"))")
        .directory(env.workspace().toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(env.variables());
    Process install = pb.start();
    assertThat(install.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(install.exitValue()).as(Files.readString(log)).isZero();
    assertThat(env.home().resolve(".emacs.d/elpa/companion4j-1.0.0/companion4j.elc")).as(Files.readString(log)).isRegularFile();
  }

  /** The package installed, and an init file that turns it on and lets the test ask Emacs. */
  private void installPackage(CliEnvironment env) throws Exception {
    install(env, temp.resolve("install.log"));
    Path serverDir = temp.resolve("emacs-server");
    socket = serverDir.resolve("server");
    Files.writeString(env.home().resolve(".emacs.d/init.el"), """
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
        (companion4j-mode 1)
        """.formatted(serverDir));
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
    ProcessBuilder pb = new ProcessBuilder(EMACSCLIENT.toString(), "-s", socket.toString(), "--eval", expression)
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
    String out = emacsclient("(json-encode (vconcat (mapcar (lambda (p) (plist-get p :file)) (companion4j-proposals))))");
    // emacsclient prints the string as a Lisp string: the JSON text in quotes, escaped.
    List<String> files = new java.util.ArrayList<>();
    for (JsonNode file : CompanionProcess.JSON.readTree(CompanionProcess.JSON.readTree(out).asString())) {
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
