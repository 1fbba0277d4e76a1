package dev.companion4j.cli.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.EventTap;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.extension.hook.ShellPolicy;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.FakeModelServer.Reply;
import dev.companion4j.testkit.FakeModelServer.Request;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.HeadlessCli.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Companion4J extension installed with {@code companion4j extension install}, without a
 * terminal, into the real Qwen Code 0.24.4 and Gemini CLI 0.61.0 at their default settings (Gemini
 * CLI's folder trust on), each in a private home and talking to a fake model on loopback that calls
 * the tools under test; what the model received is asserted.
 */
class ExtensionIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern STARTED_PORT =
      Pattern.compile("was started for this session.*?companion on port (\\d+)", Pattern.DOTALL);

  @TempDir static Path root;

  /**
   * One installation per CLI, shared by the tests: installing trains a class cache and takes
   * seconds.
   */
  private static final Map<Kind, HeadlessCli> INSTALLED = new EnumMap<>(Kind.class);

  private static synchronized HeadlessCli installed(Kind kind) throws Exception {
    HeadlessCli cli = INSTALLED.get(kind);
    if (cli == null) {
      cli =
          new HeadlessCli(
              kind, CliEnvironment.in(root.resolve(kind.runtime)), new FakeModelServer());
      HeadlessCli.Result install = ExtensionInstallIT.installWithoutTerminal(cli, cli.variables());
      assertThat(install.exitCode()).as(install.stdout() + install.stderr()).isZero();
      assertThat(install.stdout())
          .contains(
              "Staged the",
              "extensions install",
              "installed a copy of the extension 'companion4j'");
      if (kind == Kind.GEMINI) {
        ExtensionInstallIT.assertTrustedOnlyTheStagedFolder(cli, cli.state);
      }
      // The tests share one workspace and several start companions of their own: a companion a
      // session started must not linger into the next test (the tests of the linger set their own).
      Files.writeString(
          installedExtension(cli).resolve(".env"),
          "COMPANION4J_LINGER_SECONDS=0\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      INSTALLED.put(kind, cli);
    }
    return cli;
  }

  @AfterAll
  static void stopModels() {
    INSTALLED.values().forEach(cli -> cli.model.close());
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theCliListsTheExtensionAndItsMcpServerConnects(Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    HeadlessCli.Result list = cli.cli("extensions", "list");
    assertThat(list.stdout() + list.stderr())
        .contains(
            "companion4j (0.1.0)"
                .replace("companion4j", kind == Kind.QWEN ? "Companion4J" : "companion4j"));
    HeadlessCli.Result mcp = cli.cli("mcp", "list");
    assertThat((mcp.stdout() + mcp.stderr()).lines().filter(l -> l.contains("companion4j")))
        .anySatisfy(line -> assertThat(line).contains("bin/companion4j mcp").contains("Connected"));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void ideStatusReportsTheRunningCompanionAndSessionStartTellsTheModel(Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    Path file = cli.env.file("src/Main.java", "class Main {\n  int x;\n  void run() {}\n}\n");
    CompanionProcess companion = CompanionProcess.start(cli.env);
    try {
      companion.event(Map.of("type", "focus", "path", file.toString()));
      companion.event(Map.of("type", "cursor", "path", file.toString(), "line", 3, "character", 5));
      await().atMost(WAIT).until(() -> companion.get("/ide/status").body().contains("\"line\":3"));
      int before = cli.model.requests().size();

      HeadlessCli.Result run =
          cli.prompt("What is open? " + call(kind, "ide_status", "{}"), Map.of());
      assertThat(run.exitCode()).as(run.stderr()).isZero();

      List<Request> requests = since(cli, before);
      Request toolResult =
          requests.stream()
              .filter(r -> r.lastRole().equals("tool"))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "the model never got the tool's result:\n"
                              + run.stdout()
                              + run.stderr()));
      assertThat(toolResult.lastText())
          .contains("Active file: " + file + " (cursor at line 3, character 5)")
          .contains("Workspace roots: " + cli.env.workspace())
          .contains("companion on port " + companion.port());
      // The session-start hook found the same companion and told the model before its first turn.
      String first = requests.get(0).body().toString();
      assertThat(first)
          .contains("IDE status (Companion4J)")
          .contains("Active file: " + file)
          .doesNotContain("was started");
    } finally {
      companion.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theIdeToolsAnswerFromTheEditorApiAndOpenFileReachesTheEditorsStream(Kind kind)
      throws Exception {
    HeadlessCli cli = installed(kind);
    Path broken =
        cli.env.file(
            "src/Broken.java", "class Broken {\n  void run() {\n    int x = \"text\";\n  }\n}\n");
    Path edited = cli.env.file("src/Edited.java", "class Edited {}\n");
    CompanionProcess companion = CompanionProcess.start(cli.env);
    // With a review page following too: the page is no editor, so "the editor" below stays one.
    try (EventTap page = EventTap.asReviewPage(companion);
        EventTap editor = EventTap.open(companion)) {
      companion.event(
          Map.of(
              "type",
              "diagnostics",
              "path",
              broken.toString(),
              "diagnostics",
              List.of(
                  Map.of(
                      "range",
                          Map.of(
                              "startLine",
                              3,
                              "startCharacter",
                              13,
                              "endLine",
                              3,
                              "endCharacter",
                              19),
                      "severity", "error",
                      "message", "incompatible types: String cannot be converted to int",
                      "source", "javac"))));
      companion.event(Map.of("type", "focus", "path", edited.toString()));
      companion.event(Map.of("type", "dirty", "path", edited.toString(), "dirty", true));
      await()
          .atMost(WAIT)
          .until(() -> companion.get("/ide/editors").body().contains("\"dirty\":true"));
      int before = cli.model.requests().size();

      HeadlessCli.Result run =
          cli.prompt(
              "Fix the errors. "
                  + call(kind, "get_diagnostics", "{\"path\":\"src/Broken.java\"}")
                  + call(kind, "get_open_editors", "{}")
                  + call(
                      kind, "open_file", "{\"path\":\"src/Broken.java\",\"line\":3,\"column\":13}")
                  + call(kind, "open_file", "{\"path\":\"../outside.txt\"}"),
              Map.of());
      assertThat(run.exitCode()).as(run.stderr()).isZero();

      List<String> results = cli.toolResults(before);
      assertThat(results).as(run.stdout() + run.stderr()).hasSize(4);
      assertThat(results.get(0))
          .contains(broken + " (1 error)")
          .contains(
              "line 3, column 13: error: incompatible types: String cannot be converted to int [javac]");
      assertThat(results.get(1)).contains("- " + edited + " (active; unsaved changes");
      assertThat(results.get(2))
          .contains(
              "Asked the editor following the companion to show "
                  + broken
                  + " at line 3, character 13.");
      assertThat(results.get(3))
          .contains(
              "Not opened: "
                  + cli.env.workspace().resolveSibling("outside.txt")
                  + " is outside the workspace");
      JsonNode open =
          editor.await("openFile", d -> d.path("path").asString("").equals(broken.toString()));
      assertThat(open.path("line").asInt()).isEqualTo(3);
      assertThat(open.path("character").asInt()).isEqualTo(13);
      assertThat(editor.events())
          .as("the refused path never reached the editor")
          .filteredOn(e -> e.name().equals("openFile"))
          .hasSize(1);
    } finally {
      companion.close();
    }
  }

  /**
   * The code tools on the headless companion: it asks the editor that follows it, here one scripted
   * as a plugin answers over the editor API, and the rename waits for the user's review there.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void theCodeToolsAreAnsweredByTheEditorFollowingTheCompanionAndARenameByTheUsersReview(Kind kind)
      throws Exception {
    HeadlessCli cli = installed(kind);
    String greeterText = "class Greeter {\n  String greet() { return \"hi\"; }\n}\n";
    String userText = "class User {\n  String go() { return new Greeter().greet(); }\n}\n";
    Path greeter = cli.env.file("src/code/Greeter.java", greeterText);
    Path user = cli.env.file("src/code/User.java", userText);
    CompanionProcess companion = CompanionProcess.start(cli.env);
    try (EventTap editor = EventTap.open(companion)) {
      CompletableFuture<Void> editing =
          CompletableFuture.runAsync(
              () -> {
                JsonNode definition = awaitEvent(editor, "codeQuery", q -> true);
                assertThat(definition.path("kind").asString()).isEqualTo("definition");
                assertThat(definition.path("path").asString()).isEqualTo(user.toString());
                answer(
                    companion,
                    definition,
                    Map.of(
                        "results",
                        List.of(
                            Map.of(
                                "name",
                                "greet",
                                "kind",
                                "method",
                                "path",
                                greeter.toString(),
                                "line",
                                2,
                                "column",
                                10,
                                "text",
                                "  String greet() { return \"hi\"; }",
                                "declaration",
                                true))));
                JsonNode rename =
                    awaitEvent(
                        editor, "codeQuery", q -> q.path("kind").asString().equals("rename"));
                answer(
                    companion,
                    rename,
                    Map.of(
                        "files",
                        List.of(
                            Map.of(
                                "path",
                                greeter.toString(),
                                "content",
                                greeterText.replace("greet", "welcome")),
                            Map.of(
                                "path",
                                user.toString(),
                                "content",
                                userText.replace("greet()", "welcome()")))));
                // The user reviews both files and accepts the change.
                JsonNode change = awaitEvent(editor, "changeOpened", c -> true);
                assertThat(change.path("files")).hasSize(2);
                assertThat(
                        companion
                            .post("/editor/changes/" + change.path("id").asString() + "/accept", "")
                            .statusCode())
                    .isEqualTo(204);
              });
      int before = cli.model.requests().size();

      HeadlessCli.Result run =
          cli.prompt(
              "Rename greet. "
                  + call(
                      kind,
                      "find_definition",
                      "{\"path\":\"src/code/User.java\",\"line\":2,\"column\":38}")
                  + call(
                      kind,
                      "rename_symbol",
                      "{\"path\":\"src/code/Greeter.java\",\"line\":2,\"column\":10,"
                          + "\"newName\":\"welcome\"}"),
              Map.of());
      assertThat(run.exitCode()).as(run.stderr()).isZero();
      editing.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      List<String> results = cli.toolResults(before);
      assertThat(results).as(run.stdout() + run.stderr()).hasSize(2);
      assertThat(results.get(0))
          .contains(greeter + ":2:10: String greet() { return \"hi\"; }  [declaration]");
      assertThat(results.get(1)).contains("The user accepted the rename to welcome");
      assertThat(greeter).hasContent(greeterText.replace("greet", "welcome"));
      assertThat(user).hasContent(userText.replace("greet()", "welcome()"));
    } finally {
      companion.close();
    }
  }

  /** The first event {@code name} the editor heard whose data matches, awaited as long as a CLI. */
  private static JsonNode awaitEvent(
      EventTap editor, String name, java.util.function.Predicate<JsonNode> matching) {
    return await()
        .atMost(WAIT)
        .until(
            () ->
                editor.events().stream()
                    .filter(e -> e.name().equals(name) && matching.test(e.data()))
                    .findFirst(),
            Optional::isPresent)
        .orElseThrow()
        .data();
  }

  /** Answers the {@code codeQuery} {@code query} as an editor plugin does. */
  private static void answer(CompanionProcess companion, JsonNode query, Map<String, Object> body) {
    var response = companion.post("/editor/code/" + query.path("id").asString(), body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(204);
  }

  /**
   * The companion the session-start hook starts outlives its session for the linger, so that a
   * later session of the folder finds it (the CLIs look for an IDE only when they start), and then
   * stops by itself, leaving no discovery file.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void sessionStartStartsACompanionWhenNoneServesThatALaterSessionFindsAndThatStopsAfterItsLinger(
      Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    // Long enough for the later session to start, short enough to wait for.
    Map<String, String> linger = Map.of("COMPANION4J_LINGER_SECONDS", "15");
    int before = cli.model.requests().size();
    HeadlessCli.Result run = cli.prompt("hello", linger);
    assertThat(run.exitCode()).as(run.stderr()).isZero();

    String first = since(cli, before).get(0).body().toString();
    Matcher started = STARTED_PORT.matcher(first.replace("\\n", "\n"));
    assertThat(started.find()).as("the model was told a companion was started:\n" + first).isTrue();
    int port = Integer.parseInt(started.group(1));
    assertThat(first)
        .contains("it stays after the session while a CLI is connected to it, and 15 s more");

    before = cli.model.requests().size();
    HeadlessCli.Result later = cli.prompt("hello again", linger);
    assertThat(later.exitCode()).as(later.stderr()).isZero();
    String second = since(cli, before).get(0).body().toString();
    assertThat(second)
        .as("the later session found the same companion")
        .contains("companion on port " + port)
        .doesNotContain("was started");
    assertThat(discoveryFilesFor(cli, port)).isNotEmpty();

    // No CLI has been connected since: it stops after its linger and takes its discovery files
    // along.
    await().atMost(WAIT).until(() -> !accepts(port) && discoveryFilesFor(cli, port).isEmpty());
    if (kind == Kind.GEMINI) {
      try (Stream<Path> records = Files.list(cli.state.resolve("sessions"))) {
        assertThat(records.map(Path::toString))
            .as("SessionEnd forgot the sessions")
            .noneMatch(f -> f.endsWith(".companion"));
      }
    }
  }

  /**
   * A user at a terminal with no editor open: the first interactive session starts the companion
   * but is not in IDE mode (each CLI looked for an IDE before its SessionStart hook ran, and never
   * looks again); the next session finds the companion that lingers, offers to connect, and is.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLaterInteractiveSessionIsInIdeModeWithTheCompanionTheFirstSessionStarted(Kind kind)
      throws Exception {
    HeadlessCli cli = installed(kind);
    String name = kind == Kind.QWEN ? "Qwen Code" : "Gemini CLI";
    Map<String, String> env = new java.util.LinkedHashMap<>(cli.variables());
    // Its own linger; the other tests' sessions leave nothing behind (see installed()).
    env.put("COMPANION4J_LINGER_SECONDS", "120");
    List<String> command = List.of("node", kind.executable().toString());
    Path qwenLocks = cli.env.home().resolve(".qwen/ide");
    Path geminiFiles = cli.env.tmpDir().resolve("gemini/ide");
    try {
      // Gemini CLI's folder trust as a user meets it: asked once per folder, and answered here
      // unless this install's earlier sessions already trusted the shared workspace.
      boolean asksTrust = kind == Kind.GEMINI && !trusts(cli, cli.env.workspace());
      try (Tmux first = Tmux.start(command, cli.env.workspace(), env)) {
        if (asksTrust) {
          CliTerminal.awaitScreen(first, "Do you trust the files in this folder?", WAIT);
          first.press("Enter");
        }
        await().atMost(WAIT).until(() -> !companionPorts(geminiFiles).isEmpty());
        CliTerminal.awaitScreen(first, "Type your message", WAIT);
        assertThat(first.screen()).doesNotContain("Do you want to connect");
        CliTerminal.enter(first, "/ide status", WAIT);
        CliTerminal.awaitScreen(
            first, "IDE integration is not supported in your current environment", WAIT);
        CliTerminal.enter(first, "/quit", WAIT);
        await().atMost(WAIT).until(() -> first.exitStatus() != null);
      }
      // A companion names its files after several of its ancestors, all with its one port.
      List<Integer> ports = companionPorts(geminiFiles);
      assertThat(ports).as("the companion stays after the session").hasSize(1);
      int port = ports.get(0);

      try (Tmux later = Tmux.start(command, cli.env.workspace(), env)) {
        CliTerminal.awaitScreen(later, "Do you want to connect Companion4J to " + name + "?", WAIT);
        CliTerminal.declineTheOfferAndEnableIde(later, WAIT);
        CliTerminal.enter(later, "/ide status", WAIT);
        CliTerminal.awaitScreen(later, "Connected to Companion4J", WAIT);
        assertThat(companionPorts(geminiFiles))
            .as("the same companion, no second one")
            .containsExactly(port);
        assertThat(accepts(port)).isTrue();
      }
    } finally {
      // It would stop after its linger; stopped now, as a user would with the pid `status` shows.
      for (int port : companionPorts(geminiFiles)) {
        Path lock = qwenLocks.resolve(port + ".lock");
        if (Files.exists(lock)) {
          // Waited for: it removes its files as it exits, and the folder is deleted after the test.
          Optional<ProcessHandle> companion =
              ProcessHandle.of(JsonMapper.shared().readTree(lock.toFile()).path("ppid").asLong());
          if (companion.isPresent() && companion.get().destroy()) {
            companion.get().onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
          }
        }
      }
    }
  }

  /**
   * Whether Gemini CLI's trusted folders, as its trust question records them, trust {@code folder}.
   */
  private static boolean trusts(HeadlessCli cli, Path folder) throws IOException {
    Path file = cli.env.home().resolve(".gemini/trustedFolders.json");
    return Files.exists(file)
        && JsonMapper.shared()
            .readTree(file.toFile())
            .path(folder.toString())
            .asString("")
            .equals("TRUST_FOLDER");
  }

  /** The ports of the companions announced to Gemini CLI in {@code dir}. */
  private static List<Integer> companionPorts(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    Pattern name = Pattern.compile("gemini-ide-server-\\d+-(\\d+)\\.json");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(f -> name.matcher(f.getFileName().toString()))
          .filter(Matcher::matches)
          .map(m -> Integer.valueOf(m.group(1)))
          .distinct()
          .toList();
    }
  }

  /**
   * With a linger of 0 the companion stops with the session, as SessionEnd or the CLI's end says.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void withNoLingerTheCompanionStopsWithTheSession(Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    int before = cli.model.requests().size();
    HeadlessCli.Result run = cli.prompt("hello", Map.of("COMPANION4J_LINGER_SECONDS", "0"));
    assertThat(run.exitCode()).as(run.stderr()).isZero();

    String first = since(cli, before).get(0).body().toString();
    Matcher started = STARTED_PORT.matcher(first.replace("\\n", "\n"));
    assertThat(started.find()).as("the model was told a companion was started:\n" + first).isTrue();
    int port = Integer.parseInt(started.group(1));
    // Gemini CLI fires SessionEnd at the end of a headless run; Qwen Code does not, and its
    // companion
    // ends with the CLI's process instead. Either way nothing is left serving or announced.
    await().atMost(WAIT).until(() -> !accepts(port) && discoveryFilesFor(cli, port).isEmpty());
    if (kind == Kind.GEMINI) {
      try (Stream<Path> records = Files.list(cli.state.resolve("sessions"))) {
        assertThat(records.map(Path::toString)).noneMatch(f -> f.endsWith(".companion"));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theShellPolicyRefusesRmRfUnderYoloAndLetsGitStatusRun(Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    Path dir = cli.env.file("somedir/keep.txt", "keep me\n").getParent();
    new ProcessBuilder("git", "init", "-q")
        .directory(cli.env.workspace().toFile())
        .inheritIO()
        .start()
        .waitFor();

    int before = cli.model.requests().size();
    HeadlessCli.Result rm =
        cli.prompt("Tidy up [[call run_shell_command {\"command\":\"rm -rf somedir\"}]]", Map.of());
    assertThat(rm.exitCode()).as(rm.stderr()).isZero();
    assertThat(dir).isDirectory();
    assertThat(toolResult(cli, before)).contains("refused by the Companion4J policy");

    before = cli.model.requests().size();
    HeadlessCli.Result status =
        cli.prompt("Look [[call run_shell_command {\"command\":\"git status\"}]]", Map.of());
    assertThat(status.exitCode()).as(status.stderr()).isZero();
    assertThat(toolResult(cli, before)).contains("On branch").doesNotContain("Companion4J policy");

    // A call left the policy's answerer running, detached (the CLI went on without waiting for
    // it): the next calls are decided without a Java of their own, here while none could start.
    Path extension = installedExtension(cli);
    await()
        .atMost(WAIT)
        .until(
            () ->
                Files.isRegularFile(extension.resolve("run/pid"))
                    && ProcessHandle.of(
                            Long.parseLong(Files.readString(extension.resolve("run/pid")).trim()))
                        .map(ProcessHandle::isAlive)
                        .orElse(false));
    Path java = extension.resolve("lib/java");
    String chosen = Files.readString(java);
    Files.writeString(java, extension.resolve("no-such-java") + "\n");
    try {
      before = cli.model.requests().size();
      rm =
          cli.prompt("Again [[call run_shell_command {\"command\":\"rm -rf somedir\"}]]", Map.of());
      assertThat(rm.exitCode()).as(rm.stderr()).isZero();
      assertThat(dir).isDirectory();
      assertThat(toolResult(cli, before))
          .contains(ShellPolicy.bundled().check("rm -rf somedir").message());

      before = cli.model.requests().size();
      status = cli.prompt("Look [[call run_shell_command {\"command\":\"git status\"}]]", Map.of());
      assertThat(status.exitCode()).as(status.stderr()).isZero();
      assertThat(toolResult(cli, before)).contains("On branch");
    } finally {
      Files.writeString(java, chosen);
    }
  }

  /**
   * An extra argument nested past Jackson's default limit (500) once made the hook fail with exit
   * 1, which Qwen Code reads as "go on": it ran {@code rm -rf}. Now 600 levels get the policy's
   * decision. And a guard that cannot run at all (its jar gone) refuses with exit 2, which each CLI
   * blocks on.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void rmRfWithADeeplyNestedExtraArgumentOrAGuardThatCannotRunIsRefusedUnderYolo(Kind kind)
      throws Exception {
    HeadlessCli cli = installed(kind);
    Path victim = cli.env.file("victim/keep.txt", "keep me\n").getParent();
    int before = cli.model.requests().size();
    HeadlessCli.Result run = cli.prompt("Tidy up " + shell("rm -rf victim", 600), Map.of());
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(victim.resolve("keep.txt")).exists();
    assertThat(cli.toolResults(before))
        .as(run.stdout() + run.stderr())
        .singleElement()
        .asString()
        .contains(ShellPolicy.bundled().check("rm -rf victim").message());

    Path jar = installedExtension(cli).resolve("lib/companion4j.jar");
    Path aside = jar.resolveSibling("companion4j.jar.aside");
    Files.move(jar, aside);
    try {
      before = cli.model.requests().size();
      run = cli.prompt("Tidy up " + shell("rm -rf victim", 0), Map.of());
      assertThat(victim.resolve("keep.txt")).exists();
      assertThat(cli.toolResults(before))
          .as(run.stdout() + run.stderr())
          .singleElement()
          .asString()
          .contains(
              "The Companion4J shell policy refused this command: it could not check it (the extension has no lib/companion4j.jar)");
    } finally {
      Files.move(aside, jar);
    }
  }

  /**
   * Destructive spellings and harmless look-alikes from the policy's corpus, in one session of each
   * CLI under {@code --yolo}: each gets the decision the one policy gives, and the folder the
   * destructive ones aim at stays.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void bothClisGiveEachSpellingThePoliciesDecisionUnderYolo(Kind kind) throws Exception {
    HeadlessCli cli = installed(kind);
    Path victim = cli.env.file("victim/keep.txt", "keep me\n").getParent();
    new ProcessBuilder("git", "init", "-q")
        .directory(cli.env.workspace().toFile())
        .inheritIO()
        .start()
        .waitFor();
    List<String> commands =
        List.of(
            "rm -r -f victim",
            "r''m -rf victim",
            "rm${IFS}-rf${IFS}victim",
            "rm\t-rf victim",
            "sh -c 'rm -rf victim'",
            "find victim -delete",
            "git -C . clean -f -d",
            "$(echo rm) -rf victim",
            "echo cm0gLXJmIHZpY3RpbQ== | base64 -d | sh",
            "echo \"rm -rf victim\"",
            "ls -rf victim",
            "git status --short");
    int before = cli.model.requests().size();
    StringBuilder prompt = new StringBuilder("Tidy up");
    commands.forEach(c -> prompt.append(' ').append(shell(c, 0)));
    HeadlessCli.Result run = cli.prompt(prompt.toString(), Map.of());
    assertThat(run.exitCode()).as(run.stderr()).isZero();

    List<String> results = cli.toolResults(before);
    assertThat(results).as(run.stdout() + run.stderr()).hasSize(commands.size());
    for (int i = 0; i < commands.size(); i++) {
      ShellPolicy.Rule rule = ShellPolicy.bundled().check(commands.get(i));
      if (rule == null) {
        assertThat(results.get(i)).as(commands.get(i)).doesNotContain("Companion4J");
      } else {
        assertThat(results.get(i))
            .as(commands.get(i) + " (" + rule.decision() + ")")
            .contains(rule.message());
      }
    }
    assertThat(results.get(commands.indexOf("ls -rf victim"))).contains("keep.txt");
    assertThat(victim.resolve("keep.txt")).exists();
  }

  @Test
  void qwenAgentsGetQwenToolNamesAndAnAnswerWithoutHandOffIsSentBackOnce() throws Exception {
    HeadlessCli cli = installed(Kind.QWEN);
    cli.model.script(
        r ->
            r.systemText().contains("You write tests for the file")
                ? Optional.of(
                    Reply.text(
                        "## Task Report\nNo tests needed.\n\n## Downstream Context\nNothing."))
                : Optional.empty());
    cli.model.script(
        r ->
            r.systemText().contains("You review code for the user")
                ? Optional.of(Reply.text("Looks fine to me."))
                : Optional.empty());
    try {
      int before = cli.model.requests().size();
      cli.prompt(
          "[[call agent {\"description\":\"tests\",\"prompt\":\"Write tests\",\"subagent_type\":\"test_writer\",\"run_in_background\":false}]]",
          Map.of());
      Request writer = subagentRequests(cli, before, "You write tests for the file").get(0);
      assertThat(writer.toolNames())
          .contains("edit", "read_file", "write_file", "run_shell_command", "grep_search", "glob")
          .doesNotContain("replace");

      before = cli.model.requests().size();
      cli.prompt(
          "[[call agent {\"description\":\"review\",\"prompt\":\"Review the selection\",\"subagent_type\":\"code_reviewer\",\"run_in_background\":false}]]",
          Map.of());
      List<Request> reviewer = subagentRequests(cli, before, "You review code for the user");
      assertThat(reviewer).hasSize(2);
      assertThat(reviewer.get(0).body().toString()).doesNotContain("lacks the hand-off sections");
      assertThat(reviewer.get(1).lastText()).contains("Your answer lacks the hand-off sections");
      assertThat(toolResult(cli, before)).contains("Looks fine to me.");
    } finally {
      cli.model.clearScripts();
    }
  }

  @Test
  void geminiAgentsGetGeminiToolNames() throws Exception {
    HeadlessCli cli = installed(Kind.GEMINI);
    cli.model.script(
        r ->
            r.systemText().contains("You write tests for the file")
                ? Optional.of(complete(r))
                : Optional.empty());
    try {
      int before = cli.model.requests().size();
      cli.prompt(
          "[[call invoke_agent {\"agent_name\":\"test_writer\",\"prompt\":\"Write tests\"}]]",
          Map.of());
      Request writer = subagentRequests(cli, before, "You write tests for the file").get(0);
      assertThat(writer.toolNames())
          .contains(
              "replace", "read_file", "write_file", "run_shell_command", "grep_search", "glob")
          .doesNotContain("edit");
    } finally {
      cli.model.clearScripts();
    }
  }

  @Test
  void geminiTellsTheCallerOnceWhenAnAgentsAnswerLacksTheHandOff() throws Exception {
    HeadlessCli cli = installed(Kind.GEMINI);
    cli.model.script(
        r ->
            r.systemText().contains("You review code for the user")
                ? Optional.of(complete(r, "Looks fine to me."))
                : Optional.empty());
    try {
      int before = cli.model.requests().size();
      String invoke =
          "[[call invoke_agent {\"agent_name\":\"code_reviewer\",\"prompt\":\"Review the selection\"}]]";
      cli.prompt("Review twice " + invoke + " " + invoke, Map.of());
      List<String> results =
          since(cli, before).stream()
              .filter(
                  r ->
                      r.lastRole().equals("tool")
                          && !r.systemText().contains("You review code for the user"))
              .map(Request::lastText)
              .toList();
      assertThat(results).hasSize(2);
      assertThat(results.get(0))
          .contains("lacks the hand-off sections")
          .doesNotContain("Looks fine to me.");
      assertThat(results.get(1)).contains("Looks fine to me.");
    } finally {
      cli.model.clearScripts();
    }
  }

  /** Where the CLI keeps its installed copy of the extension. */
  private static Path installedExtension(HeadlessCli cli) {
    return cli.env
        .home()
        .resolve(cli.kind == Kind.QWEN ? ".qwen" : ".gemini")
        .resolve("extensions/companion4j");
  }

  /**
   * The fake model's directive for a shell call, with an extra argument nested {@code depth} arrays
   * deep.
   */
  private static String shell(String command, int depth) {
    String args = JsonMapper.shared().writeValueAsString(Map.of("command", command));
    if (depth > 0) {
      args =
          args.substring(0, args.length() - 1)
              + ",\"x\":"
              + "[".repeat(depth)
              + "]".repeat(depth)
              + "}";
    }
    return "[[call run_shell_command " + args + "]]";
  }

  /** The fake model's directive for calling one of the extension's IDE tools. */
  private static String call(Kind kind, String tool, String arguments) {
    return kind.ideToolCall(tool, arguments);
  }

  /**
   * Gemini CLI's subagents end by calling complete_task with the arguments its declaration
   * requires.
   */
  private static Reply complete(Request r) {
    return complete(r, "## Task Report\\nDone.\\n\\n## Downstream Context\\nNone.");
  }

  private static Reply complete(Request r, String answer) {
    for (JsonNode tool : r.body().path("tools")) {
      for (JsonNode declaration : tool.path("functionDeclarations")) {
        if (declaration.path("name").asString("").equals("complete_task")) {
          JsonNode schema =
              declaration.has("parametersJsonSchema")
                  ? declaration.path("parametersJsonSchema")
                  : declaration.path("parameters");
          String field = schema.path("required").path(0).asString("result");
          return Reply.call("complete_task", "{\"" + field + "\":\"" + answer + "\"}");
        }
      }
    }
    return Reply.text(answer.replace("\\n", "\n"));
  }

  private static List<Request> since(HeadlessCli cli, int before) {
    List<Request> all = cli.model.requests();
    return all.subList(before, all.size()).stream()
        .filter(r -> !r.body().path("tools").isEmpty())
        .toList();
  }

  private static List<Request> subagentRequests(HeadlessCli cli, int before, String systemPrompt) {
    List<Request> found =
        since(cli, before).stream().filter(r -> r.systemText().contains(systemPrompt)).toList();
    assertThat(found).as("the subagent's model requests").isNotEmpty();
    return found;
  }

  /** The text of the first tool result the main conversation sent back to the model. */
  private static String toolResult(HeadlessCli cli, int before) {
    return cli.toolResults(before).stream()
        .findFirst()
        .orElseThrow(() -> new AssertionError("no tool result reached the model"));
  }

  private static List<Path> discoveryFilesFor(HeadlessCli cli, int port) throws IOException {
    Path dir = cli.env.tmpDir().resolve("gemini/ide");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith("-" + port + ".json")).toList();
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
