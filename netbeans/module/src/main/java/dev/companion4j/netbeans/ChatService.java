package dev.companion4j.netbeans;

import dev.companion4j.daemon.DaemonException;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.DaemonIdeConnection;
import dev.companion4j.daemon.conversation.DaemonSource;
import java.awt.EventQueue;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
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
 * The IDE's one chat with the {@code qwen serve} daemon: it owns the {@link DaemonChat} (and so the
 * daemon's client, token and session), started when the chat window first opens and stopped with
 * the IDE. The chat window and the status bar show its {@link DaemonChat.Status}.
 *
 * <p>Every call returns at once: talking to the daemon happens on one request processor, never on
 * the EDT. Listeners and answers run on the EDT.
 */
final class ChatService {
  private static final Logger LOG = Logger.getLogger(ChatService.class.getName());
  private static final ChatService INSTANCE = new ChatService();
  private static final RequestProcessor DAEMON = new RequestProcessor("Companion4J chat", 1);

  private final List<Consumer<DaemonChat.Status>> listeners = new CopyOnWriteArrayList<>();

  /** Written and read on {@link #DAEMON} only. */
  private DaemonChat chat;

  /** The last status, written on the EDT; what a listener added later sees first. */
  private DaemonChat.Status last =
      new DaemonChat.Status("", "", "", "", List.of(), Optional.empty());

  private ChatService() {}

  static ChatService getDefault() {
    return INSTANCE;
  }

  /** Called on the EDT with each status, and at once with the last one; call it on the EDT. */
  void addListener(Consumer<DaemonChat.Status> listener) {
    listeners.add(listener);
    listener.accept(last);
  }

  void removeListener(Consumer<DaemonChat.Status> listener) {
    listeners.remove(listener);
  }

  /** Whether the chat was started since the IDE started; on the EDT. */
  boolean started() {
    return !last.daemon().isEmpty() || !last.problem().isEmpty() || last.conversation().isPresent();
  }

  /** Starts the chat if it has not started: a new session in the main project's folder. */
  void start() {
    DAEMON.post(
        () -> {
          if (chat == null) {
            openChat();
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
          if (chat == null || chat.status().daemon().isEmpty()) {
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
  void settingsChanged(DaemonChatSettings.Mode mode, String url, char[] token, String qwenCommand) {
    boolean restart = started();
    DAEMON.post(
        () -> {
          DaemonChatSettings.save(mode, url, token, qwenCommand);
          if (restart) {
            closeChat();
            openChat();
          }
        });
  }

  /** Joins the daemon's session {@code sessionId}; its history replays. */
  void attach(String sessionId) {
    DAEMON.post(
        () -> {
          if (chat != null) {
            chat.attach(sessionId);
          }
        });
  }

  /** The workspace's sessions, most recent first, handed to {@code answer} on the EDT. */
  void sessions(Consumer<List<SessionSummary>> answer, Consumer<String> failure) {
    DAEMON.post(
        () -> {
          try {
            List<SessionSummary> sessions = chat == null ? List.of() : chat.sessions();
            EventQueue.invokeLater(() -> answer.accept(sessions));
          } catch (IOException | DaemonException e) {
            EventQueue.invokeLater(() -> failure.accept(e.getMessage()));
          }
        });
  }

  void prompt(String text) {
    onConnection(c -> c.prompt(text));
  }

  void cancel() {
    onConnection(DaemonIdeConnection::cancel);
  }

  void setModel(String modelId) {
    onConnection(c -> c.setModel(modelId));
  }

  void answer(String requestId, String optionId) {
    onConnection(
        c -> {
          if (!c.answer(requestId, optionId)) {
            throw new IllegalStateException(
                "that permission request was answered or ended elsewhere");
          }
        });
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

  private void onConnection(Consumer<DaemonIdeConnection> call) {
    DAEMON.post(
        () -> {
          try {
            if (chat == null) {
              throw new IllegalStateException("the chat is not connected");
            }
            call.accept(chat.connection());
          } catch (IllegalStateException | IllegalArgumentException | DaemonException e) {
            LOG.log(Level.INFO, "Qwen Code chat: {0}", e.getMessage());
            String why = e.getMessage();
            EventQueue.invokeLater(
                () ->
                    StatusDisplayer.getDefault()
                        .setStatusText(
                            "Qwen Code chat: " + why, StatusDisplayer.IMPORTANCE_ERROR_HIGHLIGHT));
          }
        });
  }

  /** On {@link #DAEMON}. */
  private void openChat() {
    List<Path> projects = NetBeansHost.openProjectDirectories();
    DaemonSource source;
    try {
      if (projects.isEmpty()) {
        throw new IOException(
            "open a project first: the chat works in the folder of an open project");
      }
      source = DaemonChatSettings.source(mainProject(projects));
    } catch (IOException e) {
      publish(new DaemonChat.Status("", "", "", e.getMessage(), List.of(), Optional.empty()));
      return;
    }
    chat = new DaemonChat(source, projects.stream().map(Path::toString).toList(), this::publish);
    chat.connect();
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
  }

  /** On the chat's connection thread or {@link #DAEMON}. */
  private void publish(DaemonChat.Status status) {
    EventQueue.invokeLater(
        () -> {
          last = status;
          listeners.forEach(l -> l.accept(status));
        });
  }
}
