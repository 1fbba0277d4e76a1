package dev.companion4j.cli.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.cli.testing.CliTerminal;
import dev.companion4j.cli.testing.CompanionProcess;
import dev.companion4j.cli.testing.JarCommand;
import dev.companion4j.cli.testing.ReadmeSettings;
import dev.companion4j.cli.testing.Review;
import dev.companion4j.cli.testing.Tmux;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import dev.companion4j.testkit.TestPeers;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The release archive as a user meets it: built by {@code scripts/release.sh}, unpacked into a
 * fresh home, installed with its {@code install.sh}, and run with nothing on the PATH but the
 * system's directories, the installed {@code companion4j} and the CLI: the real Qwen Code TUI
 * (against the fake model on loopback) has an edit reviewed through the editor API, and the next
 * one in Neovim with the plugin from the installed tree; the real Gemini CLI, folder trust on, has
 * the next reviewed on the review page in Chromium. Emacs installs the package tarball, and the
 * noarch zip serves on the Java on the PATH. Then the archive's {@code install.sh --uninstall}
 * removes it all.
 *
 * <p>The archive is built from the jar {@code mvn package} made, without the NetBeans module, which
 * the reactor builds after this module, and without the Eclipse plugin (built with {@code -P
 * eclipse}; EclipseInstallIT installs its zip).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReleaseArchiveIT {
  /** Only stops a hung build from hanging the suite; nothing here measures speed. */
  private static final Duration BUILD = Duration.ofMinutes(5);

  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir static Path temp;
  private Path archive;
  private Path unpacked;
  private CliEnvironment env;
  private Path installed;
  private Path command;
  private FakeModelServer model;

  @BeforeAll
  void buildTheArchive() throws Exception {
    Path dist = temp.resolve("dist");
    JarCommand build =
        JarCommand.run(
            List.of(
                TestPeers.repoRoot().resolve("scripts/release.sh").toString(),
                "--skip-build",
                "--without-netbeans",
                "--without-eclipse",
                "--out",
                dist.toString()),
            Map.of(
                "PATH",
                System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                "HOME",
                temp.toString(),
                "TMPDIR",
                temp.toString()),
            TestPeers.repoRoot(),
            temp,
            BUILD);
    assertThat(build.exitCode()).as(build.stderr()).isZero();
    try (Stream<Path> files = Files.list(dist)) {
      archive =
          files
              .filter(f -> f.getFileName().toString().endsWith("-linux-x64.tar.gz"))
              .findFirst()
              .orElseThrow();
    }
    env = CliEnvironment.in(temp.resolve("user"));
    model = new FakeModelServer();
  }

  @AfterAll
  void stop() {
    if (model != null) {
      model.close();
    }
  }

  @Test
  @Order(1)
  void unpackedAndInstalledIntoAFreshHomeWithoutRoot() throws Exception {
    Path downloads = Files.createDirectories(env.home().resolve("Downloads"));
    JarCommand untar =
        JarCommand.run(List.of("tar", "-xzf", archive.toString()), system(), downloads, temp);
    assertThat(untar.exitCode()).as(untar.stderr()).isZero();
    String name = archive.getFileName().toString().replace("-linux-x64.tar.gz", "");
    unpacked = downloads.resolve(name);
    String version = name.substring("companion4j-".length());

    JarCommand install =
        JarCommand.run(
            List.of(unpacked.resolve("install.sh").toString()), system(), downloads, temp);

    assertThat(install.exitCode()).as(install.stderr()).isZero();
    installed = env.home().resolve(".local/share/companion4j/" + version);
    command = env.home().resolve(".local/bin/companion4j");
    assertThat(command).isSymbolicLink();
    assertThat(command.toRealPath()).isEqualTo(installed.resolve("bin/companion4j"));
    assertThat(env.home().resolve(".local/share/companion4j/current").toRealPath())
        .isEqualTo(installed.toRealPath());
    assertThat(install.stdout())
        .contains(
            "Installed Companion4J " + version, env.home() + "/.local/bin is not on your PATH");
  }

  @Test
  @Order(2)
  void servesOnItsOwnRuntimeAndQwenCodeHasAnEditReviewed() throws Exception {
    // Failing stand-ins for what the companion must not need, first on its PATH: each records a
    // call.
    Path calls = temp.resolve("calls.log");
    Path shims = Files.createDirectories(temp.resolve("shims"));
    for (String tool : List.of("java", "mvn", "node", "npm")) {
      Path shim = shims.resolve(tool);
      Files.writeString(shim, "#!/bin/sh\necho \"" + tool + " $*\" >> '" + calls + "'\nexit 127\n");
      Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwx------"));
    }
    Map<String, String> companionVars = new LinkedHashMap<>(env.variables());
    companionVars.put("PATH", shims + ":" + command.getParent() + ":/usr/bin:/bin");

    try (CompanionProcess companion =
        CompanionProcess.start(List.of(command.toString(), "serve"), env, companionVars)) {
      assertThat(companion.ready().path("workspacePath").asString())
          .isEqualTo(env.workspace().toString());
      ProcessHandle.Info jvm = ProcessHandle.of(companion.pid()).orElseThrow().info();
      assertThat(jvm.command())
          .as("the bundled runtime")
          .contains(installed.resolve("runtime/bin/java").toString());
      // Made when the archive was built (from JDK 25 on), or else when it was installed.
      assertThat(jvm.arguments().orElseThrow())
          .as("with its class cache")
          .containsAnyOf(
              "-XX:AOTCache=" + installed.resolve("lib/companion4j.aot"),
              "-XX:SharedArchiveFile=" + installed.resolve("lib/companion4j.jsa"));
      HttpResponse<String> page = companion.get("/review/");
      assertThat(page.statusCode()).as("the review page, served from the jar").isEqualTo(200);
      assertThat(page.body()).contains("<script");

      // The settings the archive's README asks for.
      ReadmeSettings.writeQwenSettings(
          Files.readString(unpacked.resolve("README.md")), env.qwenHome());
      // `npm install -g @qwen-code/qwen-code`: the pinned CLI as a command in a directory of its
      // own.
      Path clis = Files.createDirectories(temp.resolve("clis"));
      HeadlessCli.Kind.QWEN.installAsCommand(clis);
      Map<String, String> terminal = new LinkedHashMap<>(env.variables());
      terminal.put("PATH", clis + ":" + command.getParent() + ":/usr/bin:/bin");
      terminal.put("TERM", "xterm-256color");
      terminal.put("LANG", "C.UTF-8");
      terminal.put("OPENAI_API_KEY", "sk-fake");
      terminal.put("OPENAI_BASE_URL", model.baseUrl());
      terminal.put("OPENAI_MODEL", "fake-model");

      try (Tmux qwen = Tmux.start(List.of("qwen"), env.workspace(), terminal)) {
        CliTerminal.awaitScreen(qwen, "Do you want to connect Companion4J to Qwen Code?", WAIT);
        CliTerminal.declineTheOfferAndEnableIde(qwen, WAIT);
        CliTerminal.awaitScreen(qwen, "Connected to Companion4J", WAIT);

        Path hello = env.workspace().resolve("hello.txt");
        CliTerminal.enter(qwen, "create hello.txt saying hello [[write " + hello + "]]", WAIT);
        JsonNode diff;
        try {
          diff = Review.awaitPendingDiff(companion, hello, FakeModelServer.FILE_CONTENT, WAIT);
        } catch (ConditionTimeoutException e) {
          throw new AssertionError("no proposal; Qwen Code's terminal:\n" + qwen.screen(), e);
        }
        assertThat(hello).as("nothing written before the review").doesNotExist();
        assertThat(
                Review.accept(companion, diff.path("id").asString(), "hello from the archive\n")
                    .statusCode())
            .isEqualTo(204);

        await()
            .atMost(WAIT)
            .until(
                () ->
                    Files.exists(hello)
                        && Files.readString(hello).equals("hello from the archive\n"));

        reviewInNeovimFromTheInstalledTree(qwen, terminal);
      }
      geminiCliHasAnEditReviewedOnThePage(clis, terminal);
    }
    assertThat(calls)
        .as("the companion ran none of java, mvn, node, npm from its PATH")
        .doesNotExist();
  }

  /**
   * The same companion for Gemini CLI at its defaults, folder trust on: the person trusts the
   * project when it asks, and reviews its edit on the review page in Chromium.
   */
  private void geminiCliHasAnEditReviewedOnThePage(Path clis, Map<String, String> qwenTerminal)
      throws Exception {
    HeadlessCli.Kind.GEMINI.installAsCommand(clis);
    // Its account: an API key (the fake model's), as a user who set one up has.
    Files.createDirectories(env.home().resolve(".gemini"));
    Files.writeString(
        env.home().resolve(".gemini/settings.json"),
        "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}");
    Map<String, String> terminal = new LinkedHashMap<>(qwenTerminal);
    terminal.put("GEMINI_API_KEY", "fake");
    terminal.put("GOOGLE_GEMINI_BASE_URL", model.geminiBaseUrl());

    try (Tmux gemini = Tmux.start(List.of("gemini"), env.workspace(), terminal);
        BrowserDriver browser = BrowserDriver.start()) {
      CliTerminal.awaitScreen(gemini, "Do you want to connect Companion4J to Gemini CLI?", WAIT);
      CliTerminal.trustTheFolderAndEnableIde(gemini, WAIT);

      // `companion4j open` where no browser can be opened prints the page's address.
      JarCommand open =
          JarCommand.run(List.of(command.toString(), "open"), system(), env.workspace(), temp);
      assertThat(open.exitCode()).as(open.stderr()).isZero();
      assertThat(open.stdout()).contains("/review/#token=");
      browser.open(open.stdout().strip());
      try {
        browser.waitFor("#clients li.client", "Gemini CLI 0.61.0 (pts/");
      } catch (AssertionError e) {
        throw new AssertionError(
            "Gemini CLI not on the page; its terminal:\n" + gemini.screen(), e);
      }

      Path hello = env.workspace().resolve("hello-gemini.txt");
      CliTerminal.enter(gemini, "create hello-gemini.txt [[write " + hello + "]]", WAIT);
      CliTerminal.awaitScreen(gemini, "Apply this change?", WAIT);
      browser.waitFor("#diff-list li[data-file=\"" + hello + "\"] .badge.new", "new file");
      assertThat(hello).as("nothing written before the review").doesNotExist();
      browser.click("#accept");
      await().atMost(WAIT).until(() -> Files.exists(hello));
      assertThat(Files.readString(hello)).isEqualTo(FakeModelServer.FILE_CONTENT);
      CliTerminal.awaitScreen(gemini, "Accepted", WAIT);
    }
  }

  /**
   * The README's Neovim step, a package from {@code ~/.local/share/companion4j/current}: the next
   * edit is reviewed there.
   */
  private void reviewInNeovimFromTheInstalledTree(Tmux qwen, Map<String, String> terminal)
      throws Exception {
    Path notes = env.file("notes.txt", "alpha\n");
    Path pack =
        Files.createDirectories(
            env.home().resolve(".local/share/nvim/site/pack/companion4j/start"));
    Files.createSymbolicLink(
        pack.resolve("companion4j"),
        env.home().resolve(".local/share/companion4j/current/editors/neovim"));
    Path init = Files.createDirectories(env.home().resolve(".config/nvim")).resolve("init.lua");
    Files.writeString(
        init,
        """
        require('companion4j').setup()
        vim.o.statusline = '%f %m%=%{v:lua.require("companion4j").statusline()} '
        """);
    try (Tmux nvim = Tmux.start(List.of("/usr/bin/nvim", "notes.txt"), env.workspace(), terminal)) {
      CliTerminal.awaitScreen(nvim, "C4J 1 CLI", WAIT);
      CliTerminal.awaitScreen(qwen, "Type your message", WAIT);
      // Qwen Code overwrites only a file it has read in the session.
      CliTerminal.enter(
          qwen,
          "rewrite notes.txt [[call read_file {\"file_path\":\""
              + notes
              + "\"}]] [[write "
              + notes
              + "]]",
          WAIT);
      try {
        CliTerminal.awaitScreen(
            nvim, "proposes an edit to notes.txt: :w accepts, :q rejects", WAIT);
      } catch (AssertionError | ConditionTimeoutException e) {
        throw new AssertionError(
            "no proposal in Neovim; Qwen Code's terminal:\n" + qwen.screen(), e);
      }
      nvim.type("Goby hand");
      nvim.press("Escape");
      nvim.type(":w");
      nvim.press("Enter");
      await()
          .atMost(WAIT)
          .until(() -> Files.readString(notes).equals(FakeModelServer.FILE_CONTENT + "by hand\n"));
    }
  }

  @Test
  @Order(3)
  void emacsInstallsThePackageTarballWithPackageInstallFile() throws Exception {
    Path tarball;
    try (Stream<Path> files = Files.list(unpacked.resolve("editors/emacs"))) {
      tarball =
          files
              .filter(f -> f.getFileName().toString().matches("companion4j-[0-9.]+\\.tar"))
              .findFirst()
              .orElseThrow();
    }
    String elisp =
        "(progn (require 'package) (package-initialize) (package-install-file \""
            + tarball
            + "\"))";
    JarCommand install =
        JarCommand.run(List.of("emacs", "--batch", "--eval", elisp), system(), env.home(), temp);
    assertThat(install.exitCode()).as(install.stderr()).isZero();

    // A later Emacs finds it among the installed packages, as after a restart.
    String later =
        "(progn (require 'package) (package-initialize) (require 'companion4j)"
            + " (princ (format \"%s %s\" (package-installed-p 'companion4j) (fboundp 'companion4j-mode))))";
    JarCommand use =
        JarCommand.run(List.of("emacs", "--batch", "--eval", later), system(), env.home(), temp);
    assertThat(use.exitCode()).as(use.stderr()).isZero();
    assertThat(use.stdout()).isEqualTo("t t");
  }

  @Test
  @Order(4)
  void theNoarchZipServesOnTheJavaOnPath() throws Exception {
    Path zip =
        archive.resolveSibling(
            archive.getFileName().toString().replace("-linux-x64.tar.gz", "-noarch.zip"));
    Path elsewhere = Files.createDirectories(temp.resolve("noarch"));
    JarCommand unzip =
        JarCommand.run(List.of("unzip", "-q", zip.toString()), system(), elsewhere, temp);
    assertThat(unzip.exitCode()).as(unzip.stderr()).isZero();
    Path launcher;
    try (Stream<Path> files = Files.list(elsewhere)) {
      launcher = files.findFirst().orElseThrow().resolve("bin/companion4j");
    }
    assertThat(launcher.resolveSibling("../runtime")).doesNotExist();
    // The JDK running this test: 17 or later, like any the zip is for.
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow()).toRealPath();
    Map<String, String> vars = new LinkedHashMap<>(env.variables());
    vars.put("PATH", java.getParent() + ":/usr/bin:/bin");

    try (CompanionProcess companion =
        CompanionProcess.start(List.of(launcher.toString(), "serve"), env, vars)) {
      ProcessHandle.Info jvm = ProcessHandle.of(companion.pid()).orElseThrow().info();
      assertThat(jvm.command()).contains(java.toString());
      assertThat(String.join(" ", jvm.arguments().orElseThrow()))
          .as("with the class cache its first start recorded in the user's cache")
          .containsPattern(
              "-XX:(AOTCache|SharedArchiveFile)="
                  + Pattern.quote(env.home() + "/.cache/companion4j/"));
      assertThat(companion.get("/review/").statusCode()).isEqualTo(200);
    }
  }

  @Test
  @Order(5)
  void uninstallRemovesTheCommandItsFilesAndItsCaches() throws Exception {
    JarCommand uninstall =
        JarCommand.run(
            List.of(unpacked.resolve("install.sh").toString(), "--uninstall"),
            system(),
            env.home(),
            temp);

    assertThat(uninstall.exitCode()).as(uninstall.stderr()).isZero();
    assertThat(uninstall.stdout()).contains("Removed " + command, "Removed " + installed);
    assertThat(command).doesNotExist();
    assertThat(env.home().resolve(".local/share/companion4j")).doesNotExist();
    assertThat(env.home().resolve(".local/bin")).isEmptyDirectory();
    assertThat(env.home().resolve(".cache/companion4j"))
        .as("the noarch launcher's class caches")
        .doesNotExist();
  }

  @Test
  @Order(6)
  void theExtensionsJavaOutlivesAnUpgradeAndTheOldVersionsUninstall() throws Exception {
    JarCommand reinstall =
        JarCommand.run(
            List.of(unpacked.resolve("install.sh").toString()), system(), env.home(), temp);
    assertThat(reinstall.exitCode()).as(reinstall.stderr()).isZero();
    Map<String, String> shell = system();
    shell.put("PATH", temp.resolve("clis") + ":" + command.getParent() + ":/usr/bin:/bin");
    JarCommand extension =
        JarCommand.run(
            List.of(command.toString(), "extension", "install", "--cli", "qwen", "--yes"),
            shell,
            env.workspace(),
            temp,
            WAIT.multipliedBy(2));
    assertThat(extension.exitCode()).as(extension.stdout() + extension.stderr()).isZero();
    List<Path> recorded;
    try (Stream<Path> files = Files.walk(env.home())) {
      recorded =
          files
              .filter(f -> f.endsWith("lib/java") && !f.startsWith(env.home().resolve(".local")))
              .toList();
    }
    assertThat(recorded)
        .as("the staged extension and the CLI's copy")
        .hasSizeGreaterThanOrEqualTo(2);
    Path java = env.home().resolve(".local/share/companion4j/current/runtime/bin/java");
    for (Path file : recorded) {
      assertThat(Files.readString(file).strip()).as(file.toString()).isEqualTo(java.toString());
    }

    // A later release installed beside it, then this one uninstalled.
    Path next = env.home().resolve("Downloads/companion4j-next");
    JarCommand copy =
        JarCommand.run(
            List.of("cp", "-pR", unpacked.toString(), next.toString()), system(), env.home(), temp);
    assertThat(copy.exitCode()).as(copy.stderr()).isZero();
    Files.writeString(next.resolve("VERSION"), "99.0.0\n");
    JarCommand upgrade =
        JarCommand.run(List.of(next.resolve("install.sh").toString()), system(), env.home(), temp);
    assertThat(upgrade.exitCode()).as(upgrade.stderr()).isZero();
    JarCommand old =
        JarCommand.run(
            List.of(installed.resolve("install.sh").toString(), "--uninstall"),
            system(),
            env.home(),
            temp);
    assertThat(old.exitCode()).as(old.stderr()).isZero();
    assertThat(installed).doesNotExist();

    JarCommand runs =
        JarCommand.run(List.of(java.toString(), "-version"), system(), env.home(), temp);
    assertThat(runs.exitCode())
        .as("the recorded Java after the upgrade: " + runs.stderr())
        .isZero();
  }

  /** A shell of the user's, in the fresh home: only the system's directories on the PATH. */
  private Map<String, String> system() {
    Map<String, String> vars = new LinkedHashMap<>(env.variables());
    vars.put("PATH", "/usr/bin:/bin");
    return vars;
  }
}
