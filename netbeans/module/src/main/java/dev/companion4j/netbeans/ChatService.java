package dev.companion4j.netbeans;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.acp.AcpException;
import dev.companion4j.acp.AcpIdeConnection;
import dev.companion4j.acp.AgentChat;
import dev.companion4j.acp.ChatView;
import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.DaemonIdeConnection;
import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.engine.Companion;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.awt.EventQueue;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ui.OpenProjects;
import org.openide.awt.StatusDisplayer;
import org.openide.filesystems.FileUtil;
import org.openide.util.RequestProcessor;

/**
 * The IDE's one chat, on the path the options name: with the {@code qwen serve} daemon, owning the
 * {@link DaemonChat} (and so the daemon's client, token and session), or with an ACP agent it
 * starts ({@link AgentChat}). Started when the chat window opens; stopped with the IDE, and on the
 * ACP path also when the window closes or the path changes. The chat window and the status bar show
 * its {@link ChatView}.
 *
 * <p>Every call returns at once: talking to the daemon happens on one request processor, never on
 * the EDT. Listeners and answers run on the EDT.
 */
final class ChatService {
  private static final Logger LOG = Logger.getLogger(ChatService.class.getName());
  private static final ChatService INSTANCE = new ChatService();
  private static final RequestProcessor DAEMON = new RequestProcessor("Companion4J chat", 1);

  private final List<Consumer<ChatView>> listeners = new CopyOnWriteArrayList<>();

  /** Written and read on {@link #DAEMON} only; at most one of the two is set. */
  private DaemonChat chat;

  private AgentChat agentChat;

  /** The last view, written on the EDT; what a listener added later sees first. */
  private ChatView last = ChatView.idle("");

  private ChatService() {}

  static ChatService getDefault() {
    return INSTANCE;
  }

  /** Called on the EDT with each view, and at once with the last one; call it on the EDT. */
  void addListener(Consumer<ChatView> listener) {
    listeners.add(listener);
    listener.accept(last);
  }

  void removeListener(Consumer<ChatView> listener) {
    listeners.remove(listener);
  }

  /** Whether the chat runs: started and not stopped since; on the EDT. */
  boolean started() {
    DaemonChat.Status status = last.status();
    return last.acp()
        || !status.daemon().isEmpty()
        || !status.problem().isEmpty()
        || status.conversation().isPresent();
  }

  /** Starts the chat if it has not started: a new session in the main project's folder. */
  void start() {
    DAEMON.post(
        () -> {
          if (chat == null && agentChat == null) {
            openChat();
          }
        });
  }

  /** The chat window closed: an ACP agent the chat started stops with it. */
  void windowClosed() {
    DAEMON.post(
        () -> {
          if (agentChat != null) {
            closeChat();
            publish(ChatView.idle(""));
          }
        });
  }

  /**
   * A new session, e.g. after the last one died; with no daemon reached yet, the settings are read
   * again. The last session stays on the daemon, listed among the sessions to attach to.
   */
  void newSession() {
    DAEMON.post(
        () -> {
          if (agentChat != null) {
            agentChat.connect();
          } else if (chat == null || chat.status().daemon().isEmpty()) {
            closeChat();
            openChat();
          } else {
            chat.connect();
          }
        });
  }

  /**
   * Saves the options panel's chat settings ({@link DaemonChatSettings#save}) and, if the chat has
   * started, opens a new one with them; on the EDT.
   */
  void settingsChanged(
      DaemonChatSettings.Mode mode, String url, char[] token, String qwenCommand, String agent) {
    boolean restart = started();
    DAEMON.post(
        () -> {
          DaemonChatSettings.save(mode, url, token, qwenCommand, agent);
          if (restart) {
            closeChat();
            openChat();
          }
        });
  }

  /** Switches the ACP agent's session to one of its modes. */
  void setMode(String modeId) {
    DAEMON.post(() -> onChat(() -> agent().setMode(modeId)));
  }

  /** Joins the daemon's session {@code sessionId}, or loads the agent's; its history replays. */
  void attach(String sessionId) {
    DAEMON.post(
        () ->
            onChat(
                () -> {
                  if (agentChat != null) {
                    agentChat.attach(sessionId);
                  } else if (chat != null) {
                    chat.attach(sessionId);
                  }
                }));
  }

  /** The workspace's sessions, most recent first, handed to {@code answer} on the EDT. */
  void sessions(Consumer<List<SessionSummary>> answer, Consumer<String> failure) {
    DAEMON.post(
        () -> {
          try {
            List<SessionSummary> sessions =
                agentChat != null
                    ? agentChat.sessions()
                    : chat == null ? List.of() : chat.sessions();
            EventQueue.invokeLater(() -> answer.accept(sessions));
          } catch (IOException | DaemonException | AcpException | IllegalStateException e) {
            EventQueue.invokeLater(() -> failure.accept(e.getMessage()));
          }
        });
  }

  void prompt(String text) {
    onConnection(c -> c.prompt(text), c -> c.prompt(text));
  }

  void cancel() {
    onConnection(DaemonIdeConnection::cancel, AcpIdeConnection::cancel);
  }

  void setModel(String modelId) {
    onConnection(c -> c.setModel(modelId), c -> c.setModel(modelId));
  }

  void answer(String requestId, String optionId) {
    onConnection(
        c -> answered(c.answer(requestId, optionId)), c -> answered(c.answer(requestId, optionId)));
  }

  /** Answers the questions of an ACP agent's request, one answer each, in order. */
  void answerQuestions(String requestId, List<String> answers) {
    onConnection(
        c -> {
          throw new IllegalStateException("the daemon path asks no questions here");
        },
        c -> answered(c.answerQuestions(requestId, answers)));
  }

  private static void answered(boolean taken) {
    if (!taken) {
      throw new IllegalStateException("that permission request was answered or ended elsewhere");
    }
  }

  /**
   * Ends the session's stream and stops a daemon the chat started; before returning, off the EDT.
   */
  void shutdown() {
    RequestProcessor.Task task = DAEMON.post(this::closeChat);
    try {
      task.waitFinished(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Calls the daemon's connection or the agent's, whichever path the chat is on. */
  private void onConnection(
      Consumer<DaemonIdeConnection> daemonCall, Consumer<AcpIdeConnection> agentCall) {
    DAEMON.post(
        () ->
            onChat(
                () -> {
                  if (agentChat != null) {
                    agentCall.accept(agentChat.connection());
                  } else if (chat != null) {
                    daemonCall.accept(chat.connection());
                  } else {
                    throw new IllegalStateException("the chat is not connected");
                  }
                }));
  }

  /** Runs {@code call}, showing in the status line why it failed; on {@link #DAEMON}. */
  private static void onChat(Runnable call) {
    try {
      call.run();
    } catch (IllegalStateException | IllegalArgumentException | DaemonException | AcpException e) {
      LOG.log(Level.INFO, "Chat: {0}", e.getMessage());
      String why = e.getMessage();
      EventQueue.invokeLater(
          () ->
              StatusDisplayer.getDefault()
                  .setStatusText("Chat: " + why, StatusDisplayer.IMPORTANCE_ERROR_HIGHLIGHT));
    }
  }

  /** On {@link #DAEMON}. */
  private AgentChat agent() {
    if (agentChat == null) {
      throw new IllegalStateException("the chat is not on the ACP path");
    }
    return agentChat;
  }

  /** On {@link #DAEMON}. */
  private void openChat() {
    List<Path> projects = NetBeansHost.openProjectDirectories();
    if (projects.isEmpty()) {
      publish(
          ChatView.idle("open a project first: the chat works in the folder of an open project"));
      return;
    }
    Path main = mainProject(projects);
    if (DaemonChatSettings.mode() == DaemonChatSettings.Mode.ACP) {
      // The main project first: the agent's session works there; the others are roots too.
      List<Path> roots = new ArrayList<>(List.of(main));
      projects.stream().filter(p -> !p.equals(main)).forEach(roots::add);
      CompanionService companions = CompanionService.getDefault();
      agentChat =
          new AgentChat(
              AcpAgent.named(DaemonChatSettings.agent(), main),
              roots,
              new EditorFiles(),
              companions::companion,
              () -> ideTools(companions.companion()),
              this::publish);
      agentChat.connect();
      return;
    }
    DaemonSource source;
    try {
      source = DaemonChatSettings.source(main);
    } catch (IOException e) {
      publish(ChatView.idle(e.getMessage()));
      return;
    }
    chat =
        new DaemonChat(
            source,
            projects.stream().map(Path::toString).toList(),
            status -> publish(ChatView.daemon(status)));
    chat.connect();
  }

  /**
   * The companion's IDE tools (diagnostics, open editors, selection …) for the agent's {@code
   * session/new}, as a CLI in IDE mode has them through the extension; none while it is stopped.
   */
  private static List<AcpIdeConnection.HttpMcpServer> ideTools(Companion companion) {
    return companion == null || !companion.isRunning()
        ? List.of()
        : List.of(IdeToolsRoute.forAgent(companion.port(), companion.authToken()));
  }

  /** The main project's folder when it is among {@code projects}, else the first of them. */
  private static Path mainProject(List<Path> projects) {
    Project main = OpenProjects.getDefault().getMainProject();
    File dir = main == null ? null : FileUtil.toFile(main.getProjectDirectory());
    return dir != null && projects.contains(dir.toPath()) ? dir.toPath() : projects.get(0);
  }

  /** On {@link #DAEMON}. */
  private void closeChat() {
    if (chat != null) {
      chat.close();
      chat = null;
    }
    if (agentChat != null) {
      agentChat.close();
      agentChat = null;
    }
  }

  /** On the chat's connection thread or {@link #DAEMON}. */
  private void publish(ChatView view) {
    EventQueue.invokeLater(
        () -> {
          last = view;
          listeners.forEach(l -> l.accept(view));
        });
  }
}
