package dev.companion4j.acp;

import com.agentclientprotocol.sdk.client.AcpAsyncClient;
import com.agentclientprotocol.sdk.client.AcpClient;
import com.agentclientprotocol.sdk.spec.AcpClientSession;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import dev.companion4j.acp.internal.ClientFiles;
import dev.companion4j.acp.internal.Jackson3Mapper;
import dev.companion4j.acp.internal.PermissionRequests;
import dev.companion4j.acp.internal.StdioTransport;
import dev.companion4j.acp.internal.WorkspaceRoots;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.EventMeta;
import dev.companion4j.daemon.SessionSummary;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.ConversationFeed;
import dev.companion4j.daemon.conversation.Conversations;
import dev.companion4j.daemon.conversation.Entry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;

/**
 * An editor's chat with an ACP agent it starts itself ({@code qwen --acp}, {@code gemini --acp} or
 * any ACP command), the counterpart of {@link
 * dev.companion4j.daemon.conversation.DaemonIdeConnection}: this side owns the agent's process and
 * session and keeps the {@link Conversation}, the same model the daemon path feeds, so every front
 * end renders both alike.
 *
 * <p>It answers the agent's requests: permission requests become pending permissions of the
 * conversation, answered once through {@link #answer} (a question the agent asks the user through
 * {@link #answerQuestions}); file reads and writes go to the caller's {@link WorkspaceFiles},
 * inside the workspace roots only; any other request is refused at once as an unknown method, so
 * the agent never waits on it.
 *
 * <p>Thread-safe. The listener is called on the connection's own thread ({@code
 * companion4j-acp-view}), one call at a time, with each conversation in the order it came about; a
 * slow listener delays only later calls, never the agent.
 */
public final class AcpIdeConnection implements AutoCloseable {

  /** The originator of the prompts sent here, so a view tells them from replayed ones. */
  public static final String CLIENT_ID = "companion4j-acp";

  /** What a front end hears. */
  public interface Listener {
    /** The whole conversation after each change. */
    void changed(Conversation conversation);

    /** The agent's slash commands, each time the agent lists them anew, on the same thread. */
    default void commandsChanged(List<Command> commands) {}

    /**
     * A listener that runs {@code refresh} after each change of the conversation or the commands,
     * for a front end that reads them from the connection itself.
     */
    static Listener onEachChange(Runnable refresh) {
      return new Listener() {
        @Override
        public void changed(Conversation conversation) {
          refresh.run();
        }

        @Override
        public void commandsChanged(List<Command> commands) {
          refresh.run();
        }
      };
    }
  }

  /** A session mode the agent offers (for both CLIs, what it may do without asking). */
  public record Mode(String id, String name, String description) {}

  /** A model the agent offers. */
  public record Model(String id, String name) {}

  /**
   * One of the agent's slash commands, run by sending {@code /name input} as a prompt.
   *
   * @param hint what to type after it, or empty when it takes nothing
   */
  public record Command(String name, String description, String hint) {}

  /** An MCP server on HTTP the agent is to use in the session, e.g. the companion's IDE tools. */
  public record HttpMcpServer(String name, String url, Map<String, String> headers) {
    public HttpMcpServer {
      headers = Map.copyOf(headers);
    }

    @Override
    public String toString() {
      return "HttpMcpServer[" + name + "]";
    }
  }

  /**
   * How the session is set up.
   *
   * @param roots the folders the agent's file calls may touch; the first is the session's folder
   * @param files where confined file calls go
   * @param mcpServers servers passed at {@code session/new}
   * @param authMethodId the auth method to use when the agent asks for a login, or {@code null} to
   *     report what to run instead
   * @param loadSessionId a previous session to load, its history replayed, or {@code null} for a
   *     new one
   * @param modeId the mode a new or loaded session is switched to when the agent offers it, or
   *     {@code null} for the agent's own choice; {@link #in} picks {@code default}, which asks
   *     before edits
   */
  public record Setup(
      List<Path> roots,
      WorkspaceFiles files,
      List<HttpMcpServer> mcpServers,
      String authMethodId,
      String loadSessionId,
      String modeId) {
    public Setup {
      roots = List.copyOf(roots);
      Objects.requireNonNull(files, "files");
      mcpServers = List.copyOf(mcpServers);
    }

    /**
     * A new session in {@code workspace}, files on disk, no MCP servers, in the mode that asks
     * before edits: Qwen Code's own default for a session edits without asking.
     */
    public static Setup in(Path workspace) {
      return new Setup(List.of(workspace), WorkspaceFiles.disk(), List.of(), null, null, "default");
    }

    public Setup withFiles(WorkspaceFiles v) {
      return new Setup(roots, v, mcpServers, authMethodId, loadSessionId, modeId);
    }

    public Setup withMcpServers(List<HttpMcpServer> v) {
      return new Setup(roots, files, v, authMethodId, loadSessionId, modeId);
    }

    public Setup withAuthMethod(String v) {
      return new Setup(roots, files, mcpServers, v, loadSessionId, modeId);
    }

    public Setup withMode(String v) {
      return new Setup(roots, files, mcpServers, authMethodId, loadSessionId, v);
    }

    public Setup loading(String sessionId) {
      return new Setup(roots, files, mcpServers, authMethodId, sessionId, modeId);
    }
  }

  /** Starting an agent and its session: Node start-up on a busy machine takes seconds. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  /** File reads and writes, which this side confines; no terminals, which neither CLI uses. */
  private static final AcpSchema.ClientCapabilities CAPABILITIES =
      new AcpSchema.ClientCapabilities(new AcpSchema.FileSystemCapability(true, true), false);

  /**
   * Qwen Code's notifications of its own: what they say arrives as session updates too (modes,
   * models, turns) or is not shown yet (titles, suggestions); taken here so that each is not logged
   * as unknown.
   */
  private static final List<String> QUIET_NOTIFICATIONS =
      List.of(
          "_qwencode/start_turn",
          "_qwencode/end_turn",
          "authenticate/update",
          "qwen/notify/session/title-update",
          "qwen/notify/session/mode-update",
          "qwen/notify/session/model-update",
          "qwen/notify/session/prompt-suggestion",
          "qwen/notify/session/pr-binding",
          "qwen/notify/session/artifact-event",
          "qwen/notify/session/recording-degraded",
          "qwen/notify/session/terminal-sequence",
          "qwen/notify/session/sources-changed",
          "qwen/notify/session/mcp-budget-event",
          "qwen/notify/session/generation/event",
          "qwen/notify/workspace/generation/event");

  /** JSON-RPC's code for the agent's "authentication required". */
  private static final int AUTH_REQUIRED = -32000;

  private final AcpAgent agent;
  private final Setup setup;
  private final ClientFiles files;
  private final Listener listener;
  private final StdioTransport transport;
  private final ConversationFeed feed;
  private final AtomicLong permissionIds = new AtomicLong();
  private final AtomicLong turns = new AtomicLong();
  private AcpAsyncClient client;
  private volatile String sessionId = "";
  private volatile String agentName;
  private volatile List<Mode> modes = List.of();
  private volatile List<Model> models = List.of();
  private volatile List<Command> commands = List.of();

  // Guarded by this; conversation changes are made under it too, so they see these as they are.
  private String runningTurn;
  // Set once session/new or session/load was answered: what comes outside a turn after that is
  // complete as it arrives (Gemini CLI replays a loaded history after its answer, a message a
  // chunk).
  private boolean sessionAnswered;
  // The answer to each pending permission request: the response the agent gets.
  private final Map<String, CompletableFuture<Object>> pending = new LinkedHashMap<>();

  private AcpIdeConnection(
      AcpAgent agent, Setup setup, Listener listener, StdioTransport transport) {
    this.agent = agent;
    this.setup = setup;
    this.files = new ClientFiles(new WorkspaceRoots(setup.roots()), setup.files());
    this.listener = listener;
    this.transport = transport;
    this.agentName = agent.command().get(0);
    this.feed =
        new ConversationFeed(
            "companion4j-acp-view", Conversation.connected(null, null), listener::changed);
  }

  /**
   * Starts the agent and opens a session (a new one, or the one {@code setup} loads, its history
   * replayed into the conversation).
   *
   * @throws AcpException when the agent cannot be started, wants a login (the message says what to
   *     run), or refuses the session
   */
  public static AcpIdeConnection open(AcpAgent agent, Setup setup, Listener listener) {
    Objects.requireNonNull(listener, "listener");
    // Lines the agent writes before the connection exists are logged only.
    AtomicReference<AcpIdeConnection> made = new AtomicReference<>();
    StdioTransport transport;
    try {
      transport =
          StdioTransport.spawn(
              agent.command(),
              agent.cwd(),
              agent.environment(),
              notice -> {
                AcpIdeConnection c = made.get();
                if (c != null) {
                  c.note(Entry.Level.WARNING, notice);
                }
              });
    } catch (IOException e) {
      throw new AcpException(
          "Cannot start the agent `" + String.join(" ", agent.command()) + "`: " + e.getMessage(),
          e);
    }
    AcpIdeConnection connection = new AcpIdeConnection(agent, setup, listener, transport);
    made.set(connection);
    try {
      connection.start();
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
    return connection;
  }

  private void start() {
    client =
        transport.client(
            spec -> {
              AcpClient.AsyncSpec handlers =
                  spec.clientCapabilities(CAPABILITIES)
                      .readTextFileHandler(
                          r ->
                              Mono.fromCallable(() -> files.read(r))
                                  .subscribeOn(Schedulers.boundedElastic()))
                      .writeTextFileHandler(
                          r ->
                              Mono.defer(() -> files.write(r))
                                  .subscribeOn(Schedulers.boundedElastic()))
                      .requestHandler(
                          AcpSchema.METHOD_SESSION_REQUEST_PERMISSION,
                          (AcpClientSession.RequestHandler<Object>) this::permission)
                      .notificationHandler(AcpSchema.METHOD_SESSION_UPDATE, this::update);
              for (String method : QUIET_NOTIFICATIONS) {
                handlers = handlers.notificationHandler(method, params -> Mono.empty());
              }
              return handlers;
            });
    transport.exited().thenAccept(this::agentExited);
    AcpSchema.InitializeResponse init =
        call(
            client.initialize(
                new AcpSchema.InitializeRequest(
                    AcpSchema.LATEST_PROTOCOL_VERSION,
                    CAPABILITIES,
                    new AcpSchema.Implementation("companion4j", version()),
                    null)),
            START_TIMEOUT,
            "initialize");
    if (init.agentInfo() != null && init.agentInfo().name() != null) {
      agentName = init.agentInfo().name();
    }
    List<AcpSchema.McpServer> servers = new ArrayList<>();
    for (HttpMcpServer s : setup.mcpServers()) {
      List<AcpSchema.HttpHeader> headers = new ArrayList<>();
      s.headers().forEach((k, v) -> headers.add(new AcpSchema.HttpHeader(k, v)));
      servers.add(new AcpSchema.McpServerHttp(s.name(), s.url(), headers));
    }
    String cwd = setup.roots().get(0).toString();
    if (setup.loadSessionId() != null) {
      if (!client.getAgentCapabilities().supportsLoadSession()) {
        throw new AcpException(agentName + " cannot load a previous session (no loadSession).");
      }
      sessionId = setup.loadSessionId();
      AcpSchema.LoadSessionResponse loaded =
          authenticated(
              init,
              () -> client.loadSession(new AcpSchema.LoadSessionRequest(sessionId, cwd, servers)),
              "session/load");
      offered(loaded.modes(), loaded.models());
      // ACP answers session/load once the whole history was replayed: its last answer is complete.
      change(
          c -> {
            sessionAnswered = true;
            return Conversations.apply(c, new DaemonEvent.TurnComplete(meta(null), "end_turn"));
          });
    } else {
      AcpSchema.NewSessionResponse created =
          authenticated(
              init,
              () -> client.newSession(new AcpSchema.NewSessionRequest(cwd, servers)),
              "session/new");
      sessionId = created.sessionId();
      offered(created.modes(), created.models());
      synchronized (this) {
        sessionAnswered = true;
      }
    }
    // A loaded session too: the agent reopens it in its own default, which may edit unasked.
    String mode = setup.modeId();
    if (mode != null
        && !mode.equals(conversation().approvalMode())
        && modes.stream().anyMatch(m -> m.id().equals(mode))) {
      setMode(mode);
    }
  }

  /** The call, after a login when the agent asks for one and the setup names the method. */
  private <T> T authenticated(
      AcpSchema.InitializeResponse init, Supplier<Mono<T>> call, String what) {
    try {
      return call(call.get(), START_TIMEOUT, what);
    } catch (AcpException e) {
      if (!(e.getCause() instanceof AcpClientSession.AcpError error)
          || error.getCode() != AUTH_REQUIRED) {
        throw e;
      }
      if (setup.authMethodId() == null) {
        throw new AcpException(loginAdvice(init, error), e);
      }
      call(
          client.authenticate(new AcpSchema.AuthenticateRequest(setup.authMethodId())),
          START_TIMEOUT,
          "authenticate");
      return call(call.get(), START_TIMEOUT, what);
    }
  }

  private String loginAdvice(AcpSchema.InitializeResponse init, AcpClientSession.AcpError error) {
    List<String> methods =
        init.authMethods() == null
            ? List.of()
            : init.authMethods().stream().map(AcpSchema.AuthMethod::id).toList();
    return agentName
        + " needs a login first ("
        + error.getError().message()
        + "). Run `"
        + agent.interactiveCommand()
        + "` in a terminal in "
        + agent.cwd()
        + " and log in there, then start the chat again"
        + (methods.isEmpty() ? "." : "; the agent offers " + String.join(", ", methods) + ".");
  }

  private void offered(
      AcpSchema.SessionModeState modeState, AcpSchema.SessionModelState modelState) {
    if (modeState != null && modeState.availableModes() != null) {
      modes =
          modeState.availableModes().stream()
              .map(m -> new Mode(m.id(), m.name(), orEmpty(m.description())))
              .toList();
    }
    if (modelState != null && modelState.availableModels() != null) {
      models =
          modelState.availableModels().stream().map(m -> new Model(m.modelId(), m.name())).toList();
    }
    String modeId = modeState == null ? null : modeState.currentModeId();
    String modelId = modelState == null ? null : modelState.currentModelId();
    change(
        c ->
            settled(
                Conversations.apply(
                    Conversations.apply(
                        c, new DaemonEvent.ModelSwitched(meta(null), orEmpty(modelId))),
                    new DaemonEvent.ApprovalModeChanged(
                        meta(null), c.approvalMode(), orEmpty(modeId)))));
  }

  /** The session's id, to load it again later. */
  public String sessionId() {
    return sessionId;
  }

  /** The agent's name, as it introduced itself. */
  public String agentName() {
    return agentName;
  }

  /** The modes the agent offers; the conversation's approval mode is the current one's id. */
  public List<Mode> modes() {
    return modes;
  }

  public List<Model> models() {
    return models;
  }

  /** The agent's slash commands, as it last listed them. */
  public List<Command> commands() {
    return commands;
  }

  /**
   * The agent's earlier sessions in the session's folder, most recent first (its first page, as
   * {@code session/list} gives it), each titled by the agent (Qwen Code: its first prompt).
   *
   * @throws IllegalStateException saying why when the agent cannot list or load sessions
   * @throws AcpException when the agent fails the call
   */
  public List<SessionSummary> sessions() {
    if (!client.getAgentCapabilities().supportsLoadSession()) {
      throw new IllegalStateException(agentName + " cannot load earlier sessions");
    }
    if (!client.getAgentCapabilities().supportsListSessions()) {
      throw new IllegalStateException(
          agentName + " does not list its sessions (it offers no session/list)");
    }
    String cwd = setup.roots().get(0).toString();
    AcpSchema.ListSessionsResponse listed =
        call(
            client.listSessions(new AcpSchema.ListSessionsRequest(cwd)),
            CALL_TIMEOUT,
            "session/list");
    return listed.sessions() == null
        ? List.of()
        : listed.sessions().stream()
            .map(
                s ->
                    new SessionSummary(
                        s.sessionId(), s.cwd(), s.title(), null, s.updatedAt(), 0, false))
            .toList();
  }

  /** The conversation as it is now. */
  public Conversation conversation() {
    return feed.conversation();
  }

  /**
   * Sends a prompt (a slash command too); the answer arrives as changes of the conversation, and
   * the returned future completes with the turn's stop reason ({@code end_turn}, {@code cancelled},
   * ...) or fails with the agent's error.
   */
  public CompletableFuture<String> prompt(String text) {
    String turn = "turn-" + turns.incrementAndGet();
    change(
        c -> {
          runningTurn = turn;
          return Conversations.apply(
              c,
              new DaemonEvent.UserMessageChunk(
                  new EventMeta(0, sessionId, turn, CLIENT_ID, 0), text));
        });
    CompletableFuture<String> done = new CompletableFuture<>();
    client
        .prompt(new AcpSchema.PromptRequest(sessionId, List.of(new AcpSchema.TextContent(text))))
        .subscribe(
            response -> {
              String reason =
                  response.stopReason() == null
                      ? "end_turn"
                      : response.stopReason().name().toLowerCase(Locale.ROOT);
              turnEnded(turn, new DaemonEvent.TurnComplete(meta(turn), reason));
              done.complete(reason);
            },
            error -> {
              turnEnded(turn, new DaemonEvent.TurnError(meta(turn), message(error), null, null));
              done.completeExceptionally(new AcpException(message(error), error));
            });
    return done;
  }

  private void turnEnded(String turn, DaemonEvent end) {
    change(
        c -> {
          if (turn.equals(runningTurn)) {
            runningTurn = null;
          }
          return Conversations.apply(c, end);
        });
  }

  /**
   * Cancels the running turn; its pending permission requests are answered "cancelled", and the
   * turn ends with a "Cancelled." notice.
   */
  public void cancel() {
    cancelPermissions();
    client.cancel(new AcpSchema.CancelNotification(sessionId)).subscribe(v -> {}, e -> {});
  }

  private void cancelPermissions() {
    List<String> ids;
    synchronized (this) {
      ids = List.copyOf(pending.keySet());
    }
    for (String id : ids) {
      settle(id, new AcpSchema.PermissionCancelled(), null);
    }
  }

  /**
   * Answers a permission request with one of the agent's options.
   *
   * @return false when it was no longer pending (answered already, cancelled, or the agent gone)
   * @throws IllegalArgumentException when the request does not offer {@code optionId}
   */
  public boolean answer(String requestId, String optionId) {
    synchronized (this) {
      Conversation.PendingPermission asked = pendingPermission(requestId);
      if (asked != null) {
        DaemonEvent.PermissionOption chosen =
            asked.options().stream()
                .filter(o -> o.optionId().equals(optionId))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "The request " + requestId + " offers no option " + optionId));
        // Submitting questions unanswered would tell the agent the user answered nothing.
        if (chosen.allows() && !asked.questions().isEmpty()) {
          throw new IllegalArgumentException(
              "The request " + requestId + " asks questions: answer them to submit");
        }
      }
    }
    return settle(requestId, new AcpSchema.PermissionSelected(optionId), null);
  }

  /**
   * Answers the questions of a permission request that asks the user ({@link
   * Conversation.PendingPermission#questions()}), with the request's option that submits them.
   * Declining to answer is {@link #answer} with the request's rejecting option.
   *
   * @param answers one answer for each question, by its position: an option's label, several joined
   *     by {@code ", "} where the question allows several, or the user's own text
   * @return false when it was no longer pending (answered already, cancelled, or the agent gone)
   * @throws IllegalArgumentException when the request asks no questions, or {@code answers} leaves
   *     a question unanswered or answers one it does not ask
   */
  public boolean answerQuestions(String requestId, List<String> answers) {
    String submit;
    synchronized (this) {
      Conversation.PendingPermission asked = pendingPermission(requestId);
      if (asked == null) {
        return false;
      }
      if (asked.questions().isEmpty()) {
        throw new IllegalArgumentException("The request " + requestId + " asks no questions");
      }
      if (answers.size() != asked.questions().size()
          || answers.stream().anyMatch(a -> a == null || a.isBlank())) {
        throw new IllegalArgumentException(
            "The request "
                + requestId
                + " asks "
                + asked.questions().size()
                + " question(s): each needs an answer, and only those");
      }
      submit =
          asked.options().stream()
              .filter(o -> "allow_once".equals(o.kind()))
              .map(DaemonEvent.PermissionOption::optionId)
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "The request " + requestId + " offers no option to submit answers"));
    }
    return settle(requestId, new AcpSchema.PermissionSelected(submit), List.copyOf(answers));
  }

  /** The request {@code requestId} while it waits for an answer, else null. Under this. */
  private Conversation.PendingPermission pendingPermission(String requestId) {
    if (!pending.containsKey(requestId)) {
      return null;
    }
    return feed.conversation().permissions().stream()
        .filter(p -> p.requestId().equals(requestId))
        .findFirst()
        .orElse(null);
  }

  private boolean settle(
      String requestId, AcpSchema.RequestPermissionOutcome outcome, List<String> answers) {
    CompletableFuture<Object> answer;
    synchronized (this) {
      answer = pending.remove(requestId);
      if (answer == null) {
        return false;
      }
      String selected = outcome instanceof AcpSchema.PermissionSelected s ? s.optionId() : null;
      change(
          c ->
              Conversations.apply(
                  c, new DaemonEvent.PermissionResolved(meta(runningTurn), requestId, selected)));
    }
    answer.complete(PermissionRequests.response(outcome, answers));
    return true;
  }

  /**
   * Switches the session's mode; the conversation's approval mode shows it once the agent agreed.
   *
   * @throws AcpException when the agent refuses
   */
  public void setMode(String modeId) {
    call(
        client.setSessionMode(new AcpSchema.SetSessionModeRequest(sessionId, modeId)),
        CALL_TIMEOUT,
        "session/set_mode");
    change(
        c ->
            Conversations.apply(
                c, new DaemonEvent.ApprovalModeChanged(meta(null), c.approvalMode(), modeId)));
  }

  /**
   * Switches the session's model; the conversation shows it once the agent agreed.
   *
   * @throws AcpException when the agent refuses
   */
  @SuppressWarnings("removal") // Both CLIs still serve session/set_model, the only model switch.
  public void setModel(String modelId) {
    call(
        client.setSessionModel(new AcpSchema.SetSessionModelRequest(sessionId, modelId)),
        CALL_TIMEOUT,
        "session/set_model");
    change(c -> Conversations.apply(c, new DaemonEvent.ModelSwitched(meta(null), modelId)));
  }

  /** Stops the agent (its whole process tree, within a few seconds) and ends the conversation. */
  @Override
  public void close() {
    // Closed first, so the agent's exit that follows is no death to report.
    change(
        c ->
            c.state() == Conversation.State.DIED || c.state() == Conversation.State.CLOSED
                ? c
                : Conversations.apply(
                    c, new DaemonEvent.SessionClosed(meta(null), "the chat was closed", null)));
    cancelPermissions();
    transport.close();
    if (client != null) {
      client.close();
    }
    feed.close();
  }

  private void agentExited(int code) {
    cancelPermissions();
    String tail = transport.stderrTail();
    String last = tail.isEmpty() ? "" : tail.substring(tail.lastIndexOf('\n') + 1);
    change(
        c ->
            c.state() == Conversation.State.CLOSED || c.state() == Conversation.State.DIED
                ? c
                : Conversations.apply(
                    c,
                    new DaemonEvent.SessionDied(
                        meta(null),
                        "the agent exited with code " + code + (last.isEmpty() ? "" : ": " + last),
                        code,
                        null,
                        false)));
  }

  /** On the reader thread: one {@code session/update}, decoded leniently, never dropped unsaid. */
  private Mono<Void> update(Object params) {
    JsonNode p = Jackson3Mapper.JSON.valueToTree(params);
    JsonNode u = p.path("update");
    String kind = u.path("sessionUpdate").asString("");
    switch (kind) {
      case "available_commands_update" -> {
        List<Command> listed = new ArrayList<>();
        for (JsonNode c : u.path("availableCommands")) {
          listed.add(
              new Command(
                  c.path("name").asString(""),
                  c.path("description").asString(""),
                  c.path("input").path("hint").asString("")));
        }
        List<Command> now = List.copyOf(listed);
        commands = now;
        feed.tell(() -> listener.commandsChanged(now));
      }
      case "current_mode_update" ->
          change(
              c ->
                  Conversations.apply(
                      c,
                      new DaemonEvent.ApprovalModeChanged(
                          meta(null), c.approvalMode(), u.path("currentModeId").asString(""))));
      case "user_message_chunk" -> {
        boolean setupContext = isSetupContext(u.path("content").path("text").asString(""));
        // Gemini CLI replays the context it gave the model at the session's start as a user
        // message; the user never wrote it, and it would prefix their first prompt. Whether a
        // turn runs is read inside the step, under the lock that guards it.
        change(c -> setupContext && runningTurn == null ? c : replayedOrTurn(c, u));
      }
      default -> change(c -> replayedOrTurn(c, u));
    }
    return Mono.empty();
  }

  private static boolean isSetupContext(String text) {
    String t = text.strip();
    return t.startsWith("<session_context>") && t.endsWith("</session_context>");
  }

  /** Inside {@link #change}: an update of the running turn, or of a replayed history. */
  private Conversation replayedOrTurn(Conversation c, JsonNode u) {
    Conversation next =
        Conversations.applySessionUpdate(
            c, sessionId, runningTurn == null ? "replay" : runningTurn, u.toString());
    if (runningTurn != null) {
      return next;
    }
    // A replayed history (session/load) is no running turn, whenever it arrives.
    return sessionAnswered
        ? Conversations.apply(next, new DaemonEvent.TurnComplete(meta(null), "end_turn"))
        : settled(next);
  }

  /** On the reader thread: the request waits, without blocking the reader, for {@link #answer}. */
  private Mono<Object> permission(Object params) {
    String requestId = "permission-" + permissionIds.incrementAndGet();
    CompletableFuture<Object> answer = new CompletableFuture<>();
    synchronized (this) {
      pending.put(requestId, answer);
      DaemonEvent.PermissionRequested asked =
          PermissionRequests.read(
              Jackson3Mapper.JSON.valueToTree(params), requestId, meta(runningTurn));
      change(c -> Conversations.apply(c, asked));
    }
    return Mono.fromFuture(answer);
  }

  private void note(Entry.Level level, String text) {
    change(c -> Conversations.notice(c, level, text));
  }

  private synchronized void change(UnaryOperator<Conversation> step) {
    feed.change(step);
  }

  private <T> T call(Mono<T> call, Duration bound, String what) {
    try {
      return call.timeout(bound).block();
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() instanceof TimeoutException ? e.getCause() : e;
      throw new AcpException(
          agentName + " did not complete " + what + ": " + message(cause) + stderrHint(), cause);
    }
  }

  private String stderrHint() {
    String tail = transport.stderrTail();
    return tail.isEmpty() ? "" : "\nThe agent said:\n" + tail;
  }

  private static String message(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private EventMeta meta(String turn) {
    return new EventMeta(0, sessionId, turn, null, 0);
  }

  /** The conversation with no turn running, its streams left open. */
  private static Conversation settled(Conversation c) {
    return c.turnRunning()
        ? new Conversation(
            c.state(),
            c.stateReason(),
            c.modelId(),
            c.approvalMode(),
            false,
            c.entries(),
            c.plan(),
            c.permissions(),
            c.unsupportedTypes(),
            c.nextEntry())
        : c;
  }

  private static String version() {
    String v = AcpIdeConnection.class.getPackage().getImplementationVersion();
    return v == null ? "development" : v;
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
