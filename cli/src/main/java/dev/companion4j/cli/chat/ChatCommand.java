package dev.companion4j.cli.chat;

import dev.companion4j.daemon.Capabilities;
import dev.companion4j.daemon.DaemonClient;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.DaemonSession;
import dev.companion4j.daemon.PermissionDecision;
import dev.companion4j.daemon.PromptTurn;
import dev.companion4j.daemon.SessionOptions;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.Conversation.PendingPermission;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** {@code companion4j chat}: a terminal chat on a {@code qwen serve} daemon. */
public final class ChatCommand {
  private static final String DAEMON_LOG_LEVEL =
      "org.slf4j.simpleLogger.log.dev.companion4j.daemon";
  private static final String ACP_LOG_LEVEL = "org.slf4j.simpleLogger.log.dev.companion4j.acp";
  private static final String ACP_SDK_LOG_LEVEL =
      "org.slf4j.simpleLogger.log.com.agentclientprotocol";

  private ChatCommand() {}

  /** Runs the chat with the arguments after {@code chat}; returns the process exit code. */
  public static int run(String[] args) {
    // The chat reports drops and reconnects itself; the client's own log lines would garble the
    // screen.
    if (System.getProperty(DAEMON_LOG_LEVEL) == null) {
      System.setProperty(DAEMON_LOG_LEVEL, "error");
    }
    // The ACP path shows what matters (skipped lines, a dead agent) as notices of the chat.
    for (String logger : List.of(ACP_LOG_LEVEL, ACP_SDK_LOG_LEVEL)) {
      if (System.getProperty(logger) == null) {
        System.setProperty(logger, "off");
      }
    }
    return run(args, System.in, System.out, System.err, System.getenv(), ChatCommand::onCtrlC);
  }

  /** Runs the chat as a program of its own, e.g. from a test's class path. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * @param interrupts installs the Ctrl-C handler: it is given the action to run on Ctrl-C
   */
  static int run(
      String[] args,
      InputStream in,
      PrintStream out,
      PrintStream err,
      Map<String, String> env,
      Consumer<Runnable> interrupts) {
    ChatOptions options;
    try {
      options = ChatOptions.parse(args, env);
    } catch (IllegalArgumentException e) {
      err.println("companion4j chat: " + e.getMessage());
      err.println("Run `companion4j chat --help` for the options.");
      return 2;
    }
    if (options.help()) {
      out.println(ChatOptions.USAGE);
      return 0;
    }
    if (options.agent() != null) {
      return AcpChat.run(options, in, out, err, interrupts);
    }
    DaemonClient client;
    try {
      client = DaemonClient.builder().baseUrl(options.daemonUrl()).token(options.token()).build();
    } catch (IllegalArgumentException e) {
      err.println("companion4j chat: " + e.getMessage());
      return 2;
    }
    try (client) {
      Capabilities caps = client.capabilities();
      return new Chat(client, options, out).run(caps, in, interrupts);
    } catch (DaemonException e) {
      err.println("companion4j chat: " + e.getMessage());
      return 1;
    }
  }

  /** One chat: all inputs are handled on the calling thread, in arrival order. */
  private static final class Chat implements ChatInputs.Chat {
    private final DaemonClient client;
    private final ChatOptions options;
    private final PrintStream out;
    private final ChatInputs inputs = new ChatInputs();
    private ChatView view;
    private DaemonSession session;
    private PromptTurn running;

    Chat(DaemonClient client, ChatOptions options, PrintStream out) {
      this.client = client;
      this.options = options;
      this.out = out;
    }

    int run(Capabilities caps, InputStream in, Consumer<Runnable> interrupts) {
      SessionOptions sessionOptions =
          new SessionOptions(
              options.workspace(), options.newSession(), options.approvalMode(), null);
      try (DaemonSession opened = client.createOrAttach(sessionOptions)) {
        session = opened;
        // The banner shows the approval mode this chat asked for; a joined session's is not known
        // yet.
        Conversation first =
            Conversation.connected(
                null, session.attached() ? null : options.approvalMode().wireName());
        view =
            new ChatView(
                out, first, session.clientId(), () -> inputs.add(ChatInputs.Kind.SESSION_ENDED));
        banner(caps);
        session.subscribe(view);
        interrupts.accept(() -> inputs.add(ChatInputs.Kind.INTERRUPT));
        readLines(in);
        view.prompt();
        return inputs.loop(view, this);
      }
    }

    private void banner(Capabilities caps) {
      String version = caps.qwenCodeVersion() == null ? "" : caps.qwenCodeVersion() + " ";
      out.println("companion4j chat: qwen serve " + version + "at " + client.baseUrl());
      out.println(
          (session.attached() ? "Joined session " : "Started session ")
              + session.sessionId()
              + " in workspace "
              + session.workspaceCwd());
      out.println(
          session.attached()
              ? "[approval mode] the session's own; changes show here"
              : "[approval mode] " + ChatView.describe(options.approvalMode().wireName()));
      out.println(
          "Files, MCP servers and credentials live on the daemon's host: the workspace is a path");
      out.println("there, and the agent reads, writes and runs things there, not on this machine.");
      out.println("/model NAME switches the model, /quit leaves, Ctrl-C cancels a running turn.");
    }

    @Override
    public void cancel() {
      act(session::cancel);
    }

    @Override
    public void turnEnded() {
      if (running != null && running.result().isDone()) {
        running = null;
        view.prompt();
      }
    }

    @Override
    public boolean turnRunning() {
      return running != null && !running.result().isDone();
    }

    @Override
    public boolean line(String text) {
      Optional<PendingPermission> pending = view.pendingPermission();
      if (pending.isPresent()) {
        answer(pending.get(), text);
        return true;
      }
      if (text.equals("/quit") || text.equals("/exit")) {
        view.line("[bye]");
        return false;
      }
      if (text.equals("/model") || text.startsWith("/model ")) {
        String model = text.substring("/model".length()).strip();
        if (model.isEmpty()) {
          view.line("usage: /model NAME");
        } else {
          act(() -> session.setModel(model));
        }
      } else if (text.startsWith("/")) {
        view.line(
            "unknown command "
                + text.split("\\s+")[0]
                + "; /model NAME switches the model, /quit leaves");
      } else if (!text.isEmpty()) {
        prompt(text);
        return true;
      }
      if (!turnRunning()) {
        view.prompt();
      }
      return true;
    }

    private void prompt(String text) {
      try {
        PromptTurn turn = session.prompt(text);
        view.promptSent();
        running = turn;
        turn.result().whenComplete((result, error) -> inputs.add(ChatInputs.Kind.TURN_ENDED));
      } catch (DaemonException e) {
        view.line("[error] " + e.getMessage());
        view.prompt();
      }
    }

    private void answer(PendingPermission request, String text) {
      Optional<PermissionDecision> decision = view.answer(request, text);
      if (decision.isEmpty()) {
        return;
      }
      act(
          () -> {
            if (!session.respondToPermission(request.requestId(), decision.get())) {
              view.line("[permission] that request was already decided");
            }
          });
    }

    private void act(Runnable action) {
      try {
        action.run();
      } catch (DaemonException e) {
        view.line("[error] " + e.getMessage());
      }
    }

    private void readLines(InputStream in) {
      inputs.readLines(in, view::line);
    }
  }

  /** Ctrl-C runs the action instead of ending the JVM. */
  private static void onCtrlC(Runnable action) {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("INT"), signal -> action.run());
    } catch (IllegalArgumentException e) {
      // No SIGINT here: Ctrl-C keeps its default meaning.
    }
  }
}
