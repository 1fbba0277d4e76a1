package dev.companion4j.cli.start;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.ReadmeSettings;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's start, as a new user follows it: a fresh clone of this repository, a home of their
 * own, the launcher's first build, the real Qwen Code TUI in a terminal (in the approval mode the
 * README asks for) and the real Gemini CLI through {@code run} in this machine's container setting,
 * each to a first edit reviewed on the review page in Chromium. The model is the fake one on
 * loopback.
 *
 * <p>The clone is of the committed tree. Two things differ from a new user's machine, and only in
 * what is downloaded: {@code npm install -g} is the pinned CLIs of {@code test-peers}, and Maven
 * and npm use this machine's caches.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FirstFiveMinutesIT {
  /** Only stops a hung build from hanging the suite; nothing here measures speed. */
  private static final Duration FIRST_BUILD = Duration.ofMinutes(12);

  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir static Path temp;
  private Path clone;
  private Path home;
  private Path project;
  private Path bin;
  private String readme;
  private FakeModelServer model;
  private BrowserDriver browser;

  @BeforeAll
  void cloneAsANewUser() throws Exception {
    clone = temp.resolve("companion4j");
    home = Files.createDirectories(temp.resolve("home"));
    project = Files.createDirectories(home.resolve("src/my-project"));
    bin = Files.createDirectories(temp.resolve("bin"));
    Files.createDirectories(temp.resolve("tmp"));
    Process git =
        new ProcessBuilder(
                "git", "clone", "--quiet", TestPeers.repoRoot().toString(), clone.toString())
            .redirectErrorStream(true)
            .start();
    assertThat(git.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(git.exitValue()).as(new String(git.getInputStream().readAllBytes())).isZero();
    readme = Files.readString(clone.resolve("README.md"));
    model = new FakeModelServer();
    browser = BrowserDriver.start();
  }

  @AfterAll
  void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (model != null) {
      model.close();
    }
  }

  @Test
  @Order(1)
  void qwenCodeInATerminalWithServe() throws Exception {
    // Step 1: install a CLI.
    assertThat(readme).contains("npm install -g @qwen-code/qwen-code");
    HeadlessCli.Kind.QWEN.installAsCommand(bin);
    // Step 2: the README's settings, with the fake model's (a real user has their own account).
    ReadmeSettings.writeQwenSettings(readme, home.resolve(".qwen"));

    // Step 3: the companion, first build included.
    assertThat(readme).contains("~/companion4j/companion4j serve --open");
    Map<String, String> env = userEnvironment();
    Path out = temp.resolve("serve.out");
    Path err = temp.resolve("serve.err");
    ProcessBuilder serve =
        new ProcessBuilder(clone.resolve("companion4j").toString(), "serve", "--open")
            .directory(project.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    serve.environment().clear();
    serve.environment().putAll(env);
    Process companion = serve.start();
    await()
        .atMost(FIRST_BUILD)
        .until(() -> Files.readString(out).contains("\"event\":\"ready\"") || !companion.isAlive());
    // The hint to open the page follows the ready line: it comes once the browser could not start.
    await()
        .atMost(WAIT)
        .until(() -> Files.readString(err).contains("companion4j open") || !companion.isAlive());
    String build = Files.readString(err);
    assertThat(companion.isAlive()).as(build).isTrue();
    assertThat(build)
        .as("the launcher's output")
        .doesNotContain("\u001b", "npm notice", "npm warn", "npm WARN")
        .contains("companion4j: building")
        .contains("companion4j open");

    // Step 4: the CLI in the same folder, IDE mode on.
    assertThat(readme).contains("Press **Esc** for *No*").contains("Then type `/ide enable`");
    try (Tmux terminal = Tmux.start(List.of("qwen"), project, env)) {
      connect(terminal, "Qwen Code");
      String page = pageAddress(env);
      browser.open(page);
      onPage(terminal, () -> browser.waitFor("#clients li.client", "Qwen Code 0.24.4 (pts/"));
      browser.waitFor("#approval-hint:not([hidden])", "/approval-mode default");
      enter(terminal, "/ide status");
      awaitScreen(terminal, "Connected to Companion4J");
      assertThat(launcher(env, "status").stdout()).contains("Qwen Code 0.24.4 (pts/");

      // Step 5: a proposed edit, reviewed on the page and accepted with an edit of the user's.
      Path hello = project.resolve("hello.txt");
      enter(terminal, "create hello.txt saying hello [[write " + hello + "]]");
      awaitScreen(terminal, "Apply this change?");
      browser.waitFor("#diff-list li[data-file=\"" + hello + "\"] .badge.new", "new file");
      assertThat(hello).as("nothing written before the review").doesNotExist();
      browser.click("#accept");
      await().atMost(WAIT).until(() -> Files.exists(hello));
      assertThat(Files.readString(hello)).isEqualTo(FakeModelServer.FILE_CONTENT);
      awaitScreen(terminal, "WriteFile");
    } finally {
      companion.destroy();
      assertThat(companion.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  @Order(2)
  void geminiCliThroughRunInThisMachinesContainerSetting() throws Exception {
    assertThat(readme)
        .contains("npm install -g @google/gemini-cli")
        .contains("~/companion4j/companion4j run -- qwen");
    HeadlessCli.Kind.GEMINI.installAsCommand(bin);
    Files.createDirectories(home.resolve(".gemini"));
    // Its account (the fake model's); folder trust stays on, as a new user has it.
    Files.writeString(
        home.resolve(".gemini/settings.json"),
        "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");
    Map<String, String> env = userEnvironment();
    env.put("GEMINI_API_KEY", "fake");
    env.put("GOOGLE_GEMINI_BASE_URL", model.geminiBaseUrl());

    try (Tmux terminal =
        Tmux.start(
            List.of(clone.resolve("companion4j").toString(), "run", "--", "gemini"),
            project,
            env)) {
      assertThat(readme).contains("Do you trust the files in this folder?");
      CliTerminal.trustTheFolder(terminal, WAIT);
      connect(terminal, "Gemini CLI");
      browser.open(pageAddress(env));
      onPage(terminal, () -> browser.waitFor("#clients li.client", "Gemini CLI 0.61.0 (pts/"));
      enter(terminal, "/ide status");
      awaitScreen(terminal, "Connected to Companion4J");

      Path hello = project.resolve("hello-gemini.txt");
      enter(terminal, "create hello-gemini.txt [[write " + hello + "]]");
      awaitScreen(terminal, "Apply this change?");
      browser.waitFor("#diff-list li[data-file=\"" + hello + "\"] .badge.new", "new file");
      browser.click("#accept");
      await().atMost(WAIT).until(() -> Files.exists(hello));
      assertThat(Files.readString(hello)).isEqualTo(FakeModelServer.FILE_CONTENT);
      awaitScreen(terminal, "Accepted");
    }
  }

  /**
   * What a user's terminal has, with this machine's caches, so that the first build downloads
   * nothing.
   */
  private Map<String, String> userEnvironment() {
    Map<String, String> env = CliTerminal.userEnvironment(home, bin, temp.resolve("tmp"), model);
    env.put(
        "MAVEN_OPTS",
        "-Dmaven.repo.local="
            + System.getProperty(
                "maven.repo.local",
                Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
    env.put("npm_config_cache", Path.of(System.getProperty("user.home"), ".npm").toString());
    return env;
  }

  /**
   * {@code companion4j open} in the project, where no browser can be opened: it prints the address.
   */
  private String pageAddress(Map<String, String> env) throws Exception {
    JarCommand open = launcher(env, "open");
    assertThat(open.exitCode()).as(open.stderr()).isZero();
    assertThat(open.stdout()).startsWith("http://127.0.0.1:").contains("/review/#token=");
    return open.stdout().strip();
  }

  private JarCommand launcher(Map<String, String> env, String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(List.of(clone.resolve("companion4j").toString()));
    command.addAll(List.of(args));
    return JarCommand.run(command, env, project, temp);
  }

  /**
   * The README's step 4: No to the CLI's offer to install VS Code's extension, then IDE mode on.
   */
  private void connect(Tmux terminal, String cli) throws Exception {
    try {
      awaitScreen(terminal, "Do you want to connect Companion4J to " + cli + "?");
    } catch (AssertionError | org.awaitility.core.ConditionTimeoutException e) {
      StringBuilder locks = new StringBuilder();
      try (var files = Files.walk(home.resolve(".qwen"))) {
        files.filter(Files::isRegularFile).forEach(f -> locks.append(f).append('\n'));
      }
      try (var files = Files.walk(temp.resolve("tmp"))) {
        files.filter(Files::isRegularFile).forEach(f -> locks.append(f).append('\n'));
      }
      throw new AssertionError("no offer to connect; discovery files:\n" + locks, e);
    }
    CliTerminal.declineTheOfferAndEnableIde(terminal, WAIT);
  }

  private static void enter(Tmux terminal, String line) throws Exception {
    CliTerminal.enter(terminal, line, WAIT);
  }

  /** A step on the page; when it fails, the terminal and the page say why. */
  private void onPage(Tmux terminal, Runnable step) throws IOException {
    try {
      step.run();
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "\nclients on the page: "
              + browser.text("#clients")
              + "\nterminal:\n"
              + terminal.screen(),
          e);
    }
  }

  private static void awaitScreen(Tmux terminal, String text) {
    CliTerminal.awaitScreen(terminal, text, WAIT);
  }
}
