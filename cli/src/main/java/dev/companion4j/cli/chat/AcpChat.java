package dev.companion4j.cli.chat;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.acp.AcpException;
import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.acp.AcpIdeConnection.Command;
import dev.companion4j.daemon.PermissionDecision;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import dev.companion4j.engine.discovery.CompanionAddress;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.engine.discovery.DiscoveryScanner;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * {@code companion4j chat --agent}: the terminal chat on an ACP agent it starts itself. The
 * connection does the work; this reads lines and renders its conversations with {@link ChatView}.
 * All inputs are handled on the calling thread, in arrival order.
 */
final class AcpChat implements ChatInputs.Chat {
  private static final int TITLE_LENGTH = 80;

  private final PrintStream out;
  private final ChatInputs inputs = new ChatInputs();
  private ChatView view;
  private AcpIdeConnection connection;
  private CompletableFuture<String> running;
  private boolean commandsShown;

  private AcpChat(PrintStream out) {
    this.out = out;
  }

  static int run(
      ChatOptions options,
      InputStream in,
      PrintStream out,
      PrintStream err,
      Consumer<Runnable> interrupts) {
    Path workspace =
        Path.of(options.workspace() == null ? "" : options.workspace()).toAbsolutePath();
    if (!Files.isDirectory(workspace)) {
      err.println("companion4j chat: the workspace " + workspace + " is not a folder");
      return 2;
    }
    return new AcpChat(out).run(options, workspace, in, err, interrupts);
  }

  private int run(
      ChatOptions options,
      Path workspace,
      InputStream in,
      PrintStream err,
      Consumer<Runnable> interrupts) {
    // The IDE tools of the companion serving this folder (an editor's, or `serve`), when one does.
    Optional<CompanionAddress> editor =
        new DiscoveryScanner(DiscoveryLocations.fromEnvironment()).newestServing(workspace);
    AcpIdeConnection.Setup setup =
        AcpIdeConnection.Setup.in(workspace)
            .withMcpServers(
                editor
                    .map(c -> List.of(IdeToolsRoute.forAgent(c.port(), c.authToken())))
                    .orElse(List.of()));
    if (options.agentMode() != null) {
      setup = setup.withMode(options.agentMode());
    }
    if (options.loadSession() != null) {
      setup = setup.loading(options.loadSession());
    }
    out.println("companion4j chat: starting `" + options.agent() + "` in " + workspace + " ...");
    editor.ifPresent(
        c ->
            out.println(
                "companion4j chat: the agent gets the IDE tools of "
                    + (c.ideName().isEmpty() ? "the companion" : c.ideName())
                    + " on port "
                    + c.port()));
    view =
        new ChatView(
            out,
            Conversation.connected(null, null),
            AcpIdeConnection.CLIENT_ID,
            () -> inputs.add(ChatInputs.Kind.SESSION_ENDED));
    try (AcpIdeConnection opened =
        AcpIdeConnection.open(
            AcpAgent.named(options.agent(), workspace),
            setup,
            new AcpIdeConnection.Listener() {
              @Override
              public void changed(Conversation conversation) {
                view.show(conversation);
              }

              @Override
              public void commandsChanged(List<Command> commands) {
                if (!commandsShown) {
                  commandsShown = true;
                  view.line("[commands] " + names(commands) + " (/commands lists them)");
                }
              }
            })) {
      connection = opened;
      if (options.agentMode() != null
          && !options.agentMode().equals(connection.conversation().approvalMode())) {
        err.println(
            "companion4j chat: "
                + connection.agentName()
                + " offers no mode "
                + options.agentMode()
                + "; it offers "
                + modes());
        return 2;
      }
      banner();
      interrupts.accept(() -> inputs.add(ChatInputs.Kind.INTERRUPT));
      readLines(in);
      view.prompt();
      return inputs.loop(view, this);
    } catch (AcpException e) {
      err.println("companion4j chat: " + e.getMessage());
      return 1;
    }
  }

  private void banner() {
    view.line(
        "Session "
            + connection.sessionId()
            + " with "
            + connection.agentName()
            + " over ACP; it reads and writes files in the workspace through this chat.");
    view.line("[modes] " + modes());
    if (!connection.models().isEmpty()) {
      view.line(
          "[models] "
              + connection.models().stream()
                  .map(AcpIdeConnection.Model::id)
                  .collect(Collectors.joining(", ")));
    }
    view.line(
        "/mode ID, /model ID, /cancel, /commands, /sessions, /quit; Ctrl-C cancels a running"
            + " turn.");
  }

  private String modes() {
    return connection.modes().stream()
        .map(AcpIdeConnection.Mode::id)
        .collect(Collectors.joining(", "));
  }

  private static String names(List<Command> commands) {
    return commands.stream().map(c -> "/" + c.name()).collect(Collectors.joining(" "));
  }

  @Override
  public void cancel() {
    connection.cancel();
  }

  @Override
  public void turnEnded() {
    if (running != null && running.isDone()) {
      running = null;
      view.prompt();
    }
  }

  @Override
  public boolean turnRunning() {
    return running != null && !running.isDone();
  }

  @Override
  public boolean line(String text) {
    Optional<PendingPermission> pending = view.pendingPermission();
    if (pending.isPresent()) {
      answer(pending.get(), text);
      return true;
    }
    String word = text.split("\\s+", 2)[0];
    String rest = text.substring(word.length()).strip();
    switch (word) {
      case "/quit", "/exit" -> {
        view.line("[bye]");
        return false;
      }
      case "/mode" -> act(() -> connection.setMode(rest), "usage: /mode ID; " + modes(), rest);
      case "/model" -> act(() -> connection.setModel(rest), "usage: /model ID", rest);
      case "/cancel" -> connection.cancel();
      case "/sessions" -> view.line(sessions());
      case "/commands" ->
          view.line(
              connection.commands().isEmpty()
                  ? "[commands] the agent listed none yet"
                  : connection.commands().stream()
                      .map(c -> "  /" + c.name() + "  " + c.description())
                      .collect(Collectors.joining("\n", "[commands]\n", "")));
      default -> {
        if (text.isEmpty()) {
          break;
        }
        if (word.startsWith("/")
            && connection.commands().stream().noneMatch(c -> word.equals("/" + c.name()))) {
          view.line("unknown command " + word + "; /commands lists the agent's, /quit leaves");
          break;
        }
        if (turnRunning()) {
          // Qwen Code fails a second prompt while one runs, Gemini CLI drops the first.
          view.line("[busy] the agent is still answering; wait for [done], or /cancel");
          return true;
        }
        prompt(text);
        return true;
      }
    }
    if (!turnRunning()) {
      view.prompt();
    }
    return true;
  }

  /** The agent's earlier sessions, to go on in one with {@code --load}. */
  private String sessions() {
    List<SessionSummary> listed;
    try {
      listed = connection.sessions();
    } catch (IllegalStateException | AcpException e) {
      return "[sessions] " + e.getMessage();
    }
    if (listed.isEmpty()) {
      return "[sessions] none in this workspace yet";
    }
    return listed.stream()
        .map(
            s ->
                "  "
                    + s.sessionId()
                    + "  "
                    + (s.updatedAt() == null ? "" : s.updatedAt() + "  ")
                    + shown(s.displayName()))
        .collect(Collectors.joining("\n", "[sessions] go on in one with --load ID\n", ""));
  }

  /**
   * A title the agent gave, on one line of at most {@value #TITLE_LENGTH} characters: without
   * control characters, so that it cannot steer the terminal.
   */
  static String shown(String title) {
    String line = title == null ? "" : title.replaceAll("\\p{Cc}+", " ").strip();
    return line.length() > TITLE_LENGTH ? line.substring(0, TITLE_LENGTH) + "\u2026" : line;
  }

  private void act(Runnable action, String usage, String argument) {
    if (argument.isEmpty()) {
      view.line(usage);
      return;
    }
    try {
      action.run();
    } catch (AcpException e) {
      view.line("[error] " + e.getMessage());
    }
  }

  private void prompt(String text) {
    running = connection.prompt(text);
    running.whenComplete((reason, error) -> inputs.add(ChatInputs.Kind.TURN_ENDED));
  }

  private void answer(PendingPermission request, String text) {
    if (!request.questions().isEmpty()) {
      answerQuestion(request, text);
      return;
    }
    view.answer(request, text).ifPresent(decision -> decide(request, decision));
  }

  private void decide(PendingPermission request, PermissionDecision decision) {
    // An agent offers a reject option with every request; without one, refusing cancels the turn.
    String optionId = decision.optionId();
    if (optionId == null) {
      connection.cancel();
    } else if (!connection.answer(request.requestId(), optionId)) {
      view.line("[permission] that request was already decided");
    }
  }

  private void answerQuestion(PendingPermission request, String text) {
    Optional<List<String>> answers = view.answerQuestion(request, text);
    if (answers.isEmpty()) {
      return;
    }
    if (answers.get().isEmpty()) {
      decide(request, ChatView.decide(request, "d").orElseThrow());
    } else if (!connection.answerQuestions(request.requestId(), answers.get())) {
      view.line("[question] that question was already answered or ended");
    }
  }

  private void readLines(InputStream in) {
    inputs.readLines(in, view::line);
  }
}
