package dev.companion4j.eclipse.chat;

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
import dev.companion4j.daemon.conversation.SpawnedDaemon;
import dev.companion4j.eclipse.Activator;
import dev.companion4j.eclipse.prefs.ChatSettings;
import dev.companion4j.engine.Companion;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.equinox.security.storage.StorageException;
import org.eclipse.swt.widgets.Display;
import org.eclipse.ui.PlatformUI;

/**
 * The workbench's one chat, on the path {@link ChatSettings} names: with the {@code qwen serve}
 * daemon ({@link DaemonChat}, owning the daemon's client and session), or with an ACP agent it
 * starts ({@link AgentChat}). Started when the chat view opens; stopped when it closes and when the
 * bundle stops.
 *
 * <p>Every call returns at once: the talking happens on one thread of its own, never on the UI
 * thread. Listeners and failures are called on the UI thread.
 */
public final class ChatService {
  private static final ChatService INSTANCE = new ChatService();

  /** How long stopping the chat may hold the bundle's stop. */
  private static final long SHUTDOWN_SECONDS = 10;

  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "Companion4J chat");
            t.setDaemon(true);
            return t;
          });

  private final List<Consumer<ChatView>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<String>> failures = new CopyOnWriteArrayList<>();

  /** Written and read on {@link #worker} only; at most one of the two is set. */
  private DaemonChat chat;

  private AgentChat agentChat;

  /** The last view, written on the UI thread; what a listener added later sees first. */
  private ChatView last = ChatView.idle("");

  private ChatService() {}

  public static ChatService getDefault() {
    return INSTANCE;
  }

  /** Called with each view, at once with the last one, and with each failure; on the UI thread. */
  void addListener(Consumer<ChatView> listener, Consumer<String> failure) {
    listeners.add(listener);
    failures.add(failure);
    listener.accept(last);
  }

  void removeListener(Consumer<ChatView> listener, Consumer<String> failure) {
    listeners.remove(listener);
    failures.remove(failure);
  }

  /** Starts the chat if it has not started: a new session in the first open project. */
  void start() {
    worker.execute(
        () -> {
          if (chat == null && agentChat == null) {
            openChat();
          }
        });
  }

  /** The view closed: the chat stops with it (an agent it started, a daemon it spawned). */
  void viewClosed() {
    worker.execute(
        () -> {
          closeChat();
          publish(ChatView.idle(""));
        });
  }

  /** A new session; the settings are read again. The last one stays among the earlier ones. */
  void newSession() {
    worker.execute(
        () -> {
          closeChat();
          openChat();
        });
  }

  void setMode(String modeId) {
    worker.execute(() -> onChat(() -> agent().setMode(modeId)));
  }

  /** Joins the daemon's session {@code sessionId}, or loads the agent's; its history replays. */
  void attach(String sessionId) {
    worker.execute(
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

  /** The workspace's sessions, most recent first, handed to {@code answer} on the UI thread. */
  void sessions(Consumer<List<SessionSummary>> answer) {
    worker.execute(
        () ->
            onChat(
                () -> {
                  List<SessionSummary> sessions;
                  try {
                    sessions =
                        agentChat != null
                            ? agentChat.sessions()
                            : chat == null ? List.of() : chat.sessions();
                  } catch (IOException e) {
                    throw new IllegalStateException("cannot list sessions: " + e.getMessage(), e);
                  }
                  ui(() -> answer.accept(sessions));
                }));
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
      throw new IllegalStateException("that request was answered or ended elsewhere");
    }
  }

  /** Ends the chat, waiting for it at most {@link #SHUTDOWN_SECONDS}; off the UI thread. */
  public void shutdown() {
    worker.execute(this::closeChat);
    worker.shutdown();
    try {
      worker.awaitTermination(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void onConnection(
      Consumer<DaemonIdeConnection> daemonCall, Consumer<AcpIdeConnection> agentCall) {
    worker.execute(
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

  /** Runs {@code call}, handing why it failed to the failure listeners; on {@link #worker}. */
  private void onChat(Runnable call) {
    try {
      call.run();
    } catch (IllegalStateException | IllegalArgumentException | DaemonException | AcpException e) {
      String why = e.getMessage();
      ui(() -> failures.forEach(f -> f.accept(why)));
    }
  }

  /** On {@link #worker}. */
  private AgentChat agent() {
    if (agentChat == null) {
      throw new IllegalStateException("the chat is not on the ACP path");
    }
    return agentChat;
  }

  /** On {@link #worker}. */
  private void openChat() {
    List<Path> projects = new ArrayList<>();
    for (IProject p : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
      IPath location = p.isOpen() ? p.getLocation() : null;
      if (location != null) {
        projects.add(location.toPath());
      }
    }
    if (projects.isEmpty()) {
      publish(ChatView.idle("open a project first: the chat works in an open project's folder"));
      return;
    }
    ChatSettings settings = ChatSettings.read();
    if (settings.mode() == ChatSettings.Mode.ACP) {
      try {
        agentChat =
            new AgentChat(
                AcpAgent.named(settings.agent(), projects.get(0)),
                projects,
                new EditorFiles(),
                Activator::companion,
                () -> ideTools(Activator.companion()),
                this::publish);
      } catch (IllegalArgumentException e) {
        publish(ChatView.idle(e.getMessage()));
        return;
      }
      agentChat.connect();
      return;
    }
    DaemonSource source;
    try {
      source = daemon(settings, projects.get(0));
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

  /**
   * On {@link #worker}: the daemon the settings name for a chat in {@code project}, the one at the
   * address (saved, else {@code QWEN_IDE_DAEMON_URL}) or a {@code qwen serve} the chat starts.
   *
   * @throws IOException saying what to set when no address is given, or why it is not usable
   */
  private static DaemonSource daemon(ChatSettings settings, Path project) throws IOException {
    if (settings.mode() == ChatSettings.Mode.SPAWN) {
      return new SpawnedDaemon(settings.qwenCommand(), project, System.getenv());
    }
    String url =
        settings.daemonUrl().isEmpty()
            ? System.getenv().getOrDefault(DaemonSource.URL_VARIABLE, "")
            : settings.daemonUrl();
    if (url.isBlank()) {
      throw new IOException(
          "no daemon address: set one in Window > Preferences > CLI Companion or "
              + DaemonSource.URL_VARIABLE
              + ", or let the chat start qwen serve");
    }
    try {
      return DaemonSource.running(url, token());
    } catch (IllegalArgumentException e) {
      throw new IOException("the daemon address is not usable: " + e.getMessage(), e);
    }
  }

  /** The saved token, else the environment's; the storage may ask for its password (never UI). */
  private static String token() {
    try {
      Optional<String> saved = ChatSettings.daemonToken();
      if (saved.isPresent()) {
        return saved.get();
      }
    } catch (StorageException e) {
      // Unreadable storage (no password given): the environment's token, as without a saved one.
    }
    return System.getenv(DaemonSource.TOKEN_VARIABLE);
  }

  /** On {@link #worker}. */
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

  /** On the chat's connection threads or {@link #worker}. */
  private void publish(ChatView view) {
    ui(
        () -> {
          last = view;
          listeners.forEach(l -> l.accept(view));
        });
  }

  private static void ui(Runnable work) {
    if (!PlatformUI.isWorkbenchRunning()) {
      return;
    }
    Display display = PlatformUI.getWorkbench().getDisplay();
    if (!display.isDisposed()) {
      display.asyncExec(work);
    }
  }
}
