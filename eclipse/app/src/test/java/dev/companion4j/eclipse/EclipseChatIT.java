package dev.companion4j.eclipse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.companion4j.eclipse.WorkbenchProbe.Widget;
import dev.companion4j.testkit.CliEnvironment;
import dev.companion4j.testkit.FakeModelServer;
import dev.companion4j.testkit.HeadlessCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Agent Chat view in the Eclipse IDE as scripts/run-eclipse.sh starts it, on the ACP path with
 * the real {@code qwen --acp} of Qwen Code 0.24.4 and {@code gemini --acp} of Gemini CLI 0.61.0,
 * their model a scripted fake: a user at the display opens the view (Alt+Shift+Q A), types a
 * prompt, and reads the streamed answer in the log (found and read through the widget probe); a
 * write the agent asks for is allowed in the view, reviewed in the compare editor and, accepted,
 * lands on disk; a held answer is cancelled.
 */
class EclipseChatIT {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A point in the text editor, which shares the window with the view once an editor opened. */
  private static final String EDITOR_X = "300";

  private static final String EDITOR_Y = "300";

  /** The view's widgets, by the names the plugin gives them. */
  private static final String LOG = "companion4j.chat.log";

  private static final String INPUT = "companion4j.chat.input";
  private static final String CANCEL = "companion4j.chat.cancel";

  @TempDir Path root;

  @Test
  void qwenChatsInTheView() throws Exception {
    chat(HeadlessCli.Kind.QWEN);
  }

  @Test
  void geminiChatsInTheView() throws Exception {
    chat(HeadlessCli.Kind.GEMINI);
  }

  private void chat(HeadlessCli.Kind kind) throws Exception {
    CliEnvironment env = CliEnvironment.in(root);
    env.file("hello.txt", "hello\n");
    try (FakeModelServer model = new FakeModelServer()) {
      Path agent = agentCommand(kind, env, model);
      // The chat's settings as the workspace keeps them: the agent's command (the real CLI in ACP
      // mode on the fake model), else the default `qwen`.
      Path prefs =
          root.resolve(
              "eclipse-data/.metadata/.plugins/org.eclipse.core.runtime/.settings/"
                  + "dev.companion4j.eclipse.prefs");
      Files.createDirectories(prefs.getParent());
      Files.writeString(prefs, "eclipse.preferences.version=1\nchat.acpAgent=" + agent + "\n");

      Path probeFile = root.resolve("probe.address");
      Map<String, String> probe = WorkbenchProbe.variables(root.resolve("probe"), probeFile);
      try (EclipseRun run = EclipseRun.start(root, env, probe, BOOT)) {
        Process eclipse = run.script();
        EclipseCompanionIT.Companion companion =
            EclipseCompanionIT.Companion.at(run.port(), env.qwenHome());
        String display = run.display();
        User user = new User(display, WorkbenchProbe.await(probeFile, BOOT));
        String name = kind.name().toLowerCase(Locale.ROOT);

        // Alt+Shift+Q A opens the view (right of the editors); it starts the agent (its script
        // execs node with --acp). A prompt sent while the session opens waits for it.
        ScreenUser.act(display, "click", "500", "300", "keys", "shift+alt+Q", "keys", "A");
        ProcessHandle workbench = ProcessHandle.of(run.pid()).orElseThrow();
        await()
            .atMost(WAIT)
            .until(
                () ->
                    workbench
                        .descendants()
                        .anyMatch(p -> p.info().commandLine().orElse("").contains(" --acp")));
        // Ctrl+M in the view gives it the whole window: its input as wide as that. The click that
        // makes the view the active part goes to its log, which shows whole even where a small
        // window leaves the input half under the Tasks view. Pressed again when the view has not
        // grown: Ctrl+M that went to another part hid the view, and the next one restores it.
        await().atMost(WAIT).until(() -> user.workbench().find(LOG).isPresent());
        for (int attempt = 1; !user.inputIsWide(); attempt++) {
          if (user.workbench().find(LOG).isPresent()) {
            user.click(LOG);
          }
          ScreenUser.act(display, "keys", "ctrl+M");
          try {
            await().atMost(Duration.ofSeconds(20)).until(user::inputIsWide);
          } catch (ConditionTimeoutException e) {
            if (attempt == 4) {
              shot(display, "EclipseChatIT-failed.png");
              throw e;
            }
          }
        }
        user.prompt("say hello");
        user.awaitLog(t -> t.contains("You: say hello") && t.contains("Hello from "));

        // The model's Markdown is styled text: its marks gone, its HTML shown as text, a link's
        // address after its text.
        model.script(
            r ->
                r.lastText().contains("markdown please")
                    ? Optional.of(
                        FakeModelServer.Reply.text(
                            "**Bold** and <b>tag</b> kept, `code` and [link](https://example.invalid/)"))
                    : Optional.empty());
        user.prompt("markdown please");
        user.awaitLog(
            t -> t.contains("Bold and <b>tag</b> kept, code and link <https://example.invalid/>"));
        model.clearScripts();

        user.prompt("[[count 40]]");
        user.awaitLog(t -> t.contains("c0039") && t.contains("You: say hello"));
        // The view with its answers, for the docs.
        shot(display, "EclipseChatIT-" + name + "-answer.png");

        // The agent asks before it writes (its own options, in a card), then writes through the
        // IDE: the compare editor shows it; accepted there, it lands on disk.
        Path file = fileToWrite(kind, env);
        String before = Files.exists(file) ? Files.readString(file) : null;
        assertThat(file.toString()).as("typed by the keyboard: no capitals").isLowerCase();
        user.prompt("[[write " + file + "]]");
        user.awaitLog(t -> t.contains("You: [[write"));
        // Allow in the card, once it shows (a click there before hits nothing that acts).
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () -> {
                  shot(display, "EclipseChatIT-" + name + "-permission.png");
                  user.click("Allow");
                  return companion.status().path("pendingDiffs").size() == 1;
                });
        shot(display, "EclipseChatIT-" + name + "-review.png");
        assertThat(Files.exists(file) ? Files.readString(file) : null)
            .as("nothing written before the answer")
            .isEqualTo(before);
        ScreenUser.act(display, "keys", "ctrl+alt+A");
        await()
            .atMost(WAIT)
            .until(
                () ->
                    Files.exists(file)
                        && Files.readString(file).equals(FakeModelServer.FILE_CONTENT));

        // The agent reads what the editor holds, unsaved text included: the file opened through
        // open_file's route, "unsaved " typed at its start, then a read the model asks for. (Gemini
        // CLI's read_file reads the disk, never the client: no such step for it.)
        if (kind == HeadlessCli.Kind.QWEN) {
          Path hello = env.workspace().resolve("hello.txt");
          assertThat(
                  companion
                      .post(
                          "/ide/open", Map.of("path", hello.toString(), "line", 1, "character", 1))
                      .statusCode())
              .isEqualTo(200);
          ScreenUser.act(
              display, "click", EDITOR_X, EDITOR_Y, "keys", "ctrl+HOME", "type", "unsaved ");
          model.script(
              r ->
                  r.lastText().contains("read it please")
                      ? Optional.of(
                          FakeModelServer.Reply.call(
                              "read_file",
                              JSON.writeValueAsString(Map.of("file_path", hello.toString()))))
                      : Optional.empty());
          user.prompt("read it please");
          user.awaitLog(t -> t.contains("Tool said:") && t.contains("unsaved "));
          model.clearScripts();
          assertThat(Files.readString(hello))
              .as("the disk keeps its text")
              .doesNotContain("unsaved");
        }

        // A held answer: Cancel ends the turn, and the log says so.
        user.prompt("[[hold]]");
        user.awaitLog(t -> t.contains("You: [[hold]]"));
        user.click(CANCEL);
        user.awaitLog(t -> t.contains("Cancelled"));
        shot(display, "EclipseChatIT-" + name + "-cancelled.png");

        eclipse.destroy();
        assertThat(eclipse.waitFor(60, TimeUnit.SECONDS)).as("Eclipse exits on SIGTERM").isTrue();
      }
    }
  }

  /**
   * A user at the display, who finds the view's widgets where the workbench put them (through the
   * widget probe) and reads the log as it shows.
   */
  private record User(String display, WorkbenchProbe workbench) {
    /** Clicks into the input, types {@code text} and sends it with Ctrl+Enter. */
    void prompt(String text) throws Exception {
      click(INPUT);
      ScreenUser.act(display, "type", text, "keys", "ctrl+ENTER");
    }

    /** Clicks the middle of the visible widget named {@code nameOrText}. */
    void click(String nameOrText) throws Exception {
      Widget w =
          workbench
              .find(nameOrText)
              .orElseThrow(() -> new AssertionError("no widget " + nameOrText + " shows"));
      ScreenUser.act(
          display,
          "click",
          String.valueOf(w.x() + w.width() / 2),
          String.valueOf(w.y() + w.height() / 2));
    }

    /** Whether the view's input is as wide as a view that has the whole window. */
    boolean inputIsWide() throws Exception {
      return workbench.find(INPUT).map(w -> w.width() > 600).orElse(false);
    }

    /** Waits until the log's text meets {@code condition}; a failure shows the last one. */
    void awaitLog(Predicate<String> condition) {
      AtomicReference<String> last = new AtomicReference<>("");
      try {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  last.set(workbench.find(LOG).map(Widget::text).orElse(""));
                  return condition.test(last.get());
                });
      } catch (ConditionTimeoutException e) {
        try {
          shot(display, "EclipseChatIT-failed.png");
        } catch (Exception shotFailed) {
          e.addSuppressed(shotFailed);
        }
        throw new AssertionError("the chat log never matched; last: " + last.get(), e);
      }
    }
  }

  /** The screen now, in the build's folder: for the docs, and for whoever reads a failure. */
  private static void shot(String display, String file) throws Exception {
    ScreenUser.act(display, "shot", Path.of("target", file).toString());
  }

  /**
   * A file for the agent to write: a new one, or one that exists for Gemini CLI, which does not
   * create files through the client.
   */
  private static Path fileToWrite(HeadlessCli.Kind kind, CliEnvironment env) {
    return kind == HeadlessCli.Kind.QWEN
        ? env.workspace().resolve("accepted.txt")
        : env.workspace().resolve("hello.txt");
  }

  /**
   * A command named as the agent that starts the real CLI in ACP mode with its home under the
   * test's folder and the fake model as its model.
   */
  private Path agentCommand(HeadlessCli.Kind kind, CliEnvironment env, FakeModelServer model)
      throws Exception {
    HeadlessCli cli = new HeadlessCli(kind, env, model);
    if (kind == HeadlessCli.Kind.GEMINI) {
      // What answering Gemini CLI's folder-trust question once records; ACP mode cannot ask.
      cli.trustTheWorkspace();
    }
    StringBuilder script = new StringBuilder("#!/bin/sh\n");
    cli.variables()
        .forEach((k, v) -> script.append("export ").append(k).append("='").append(v).append("'\n"));
    script.append("exec node '").append(kind.executable()).append("' --acp \"$@\"\n");
    Path agent = Files.createDirectories(root.resolve("bin")).resolve(kind.runtime);
    Files.writeString(agent, script);
    Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
    return agent;
  }
}
