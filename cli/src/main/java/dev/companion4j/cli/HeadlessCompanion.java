package dev.companion4j.cli;

import dev.companion4j.acp.AcpAgent;
import dev.companion4j.cli.daemonchat.AcpChat;
import dev.companion4j.cli.daemonchat.ChatApi;
import dev.companion4j.cli.editorapi.EditorApi;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.http.OnFirstRequest;
import dev.companion4j.extension.mcp.IdeToolsRoute;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A companion for the headless host, with its routes mounted: the editor API, the review page and
 * the chat, on the daemon path when it has a daemon to talk to and on the ACP path when it was
 * given an agent. Closing it ends the routes' event streams before the companion stops.
 */
public final class HeadlessCompanion implements AutoCloseable {
  /** The name the CLIs show for a companion the command line starts, unless told otherwise. */
  static final IdeInfo IDE_INFO = new IdeInfo("companion4j", "Companion4J");

  /** How many CLIs may be connected at once, unless told otherwise. */
  static final int MAX_CLIS = 32;

  private final Companion companion;
  private final List<Path> roots;
  private final EditorApi editorApi;
  private final ChatApi chatApi;
  private final ChatApi acpApi;
  private final Optional<DaemonChat> chat;

  /** Set once, before the companion starts. */
  private volatile AcpChat acpChat;

  private HeadlessCompanion(
      Companion companion,
      List<Path> roots,
      EditorApi editorApi,
      ChatApi chatApi,
      ChatApi acpApi,
      Optional<DaemonChat> chat) {
    this.companion = companion;
    this.roots = List.copyOf(roots);
    this.editorApi = editorApi;
    this.chatApi = chatApi;
    this.acpApi = acpApi;
    this.chat = chat;
  }

  /**
   * Builds (does not start) the companion {@code companion4j serve} runs with its defaults for
   * {@code roots}: review page included, no chat.
   */
  public static HeadlessCompanion serving(List<Path> roots) {
    return build(IDE_INFO, roots, builder -> builder.maxClients(MAX_CLIS));
  }

  /** Builds (does not start) a headless companion; {@code settings} may adjust the builder. */
  static HeadlessCompanion build(
      IdeInfo ideInfo, List<Path> roots, UnaryOperator<Companion.Builder> settings) {
    return build(ideInfo, roots, settings, Optional.empty());
  }

  /**
   * Builds (does not start) a headless companion that also chats with {@code daemon}, when the
   * daemon's workspace is one of {@code roots}.
   */
  static HeadlessCompanion build(
      IdeInfo ideInfo,
      List<Path> roots,
      UnaryOperator<Companion.Builder> settings,
      Optional<DaemonSource> daemon) {
    EditorApi editorApi = new EditorApi();
    HeadlessHost host = new HeadlessHost(ideInfo, roots, editorApi);
    Companion.Builder builder =
        settings.apply(Companion.builder(host)).route(EditorApi.pathSpec(), editorApi);
    ReviewPages.mount(builder);
    // Mounted without a daemon or agent too, so the page learns there is no chat from an answer,
    // not a 404.
    ChatApi chatApi = ChatApi.daemonPath();
    builder.route(chatApi.pathSpec(), chatApi);
    ChatApi acpApi = ChatApi.acpPath();
    builder.route(acpApi.pathSpec(), acpApi);
    // The IDE tools for an ACP agent: this one's, or one the user runs in another ACP client. Set
    // up on their first call: the MCP server behind them costs tens of milliseconds of a start.
    AtomicReference<Companion> built = new AtomicReference<>();
    builder.mcpRoute(
        IdeToolsRoute.PATH, new OnFirstRequest(() -> IdeToolsRoute.servlet(built::get)));
    Optional<DaemonChat> chat =
        daemon.map(
            source ->
                new DaemonChat(
                    source, roots.stream().map(Path::toString).toList(), chatApi::publish));
    chat.ifPresent(chatApi::attach);
    Companion companion = builder.build();
    built.set(companion);
    editorApi.attach(companion);
    return new HeadlessCompanion(companion, roots, editorApi, chatApi, acpApi, chat);
  }

  /**
   * Adds the ACP path's chat with {@code agent} ({@code qwen}, {@code gemini} or an agent's command
   * line), working in the first root; call before {@link #startChat()}.
   */
  void chatWith(String agent) {
    acpChat = new AcpChat(AcpAgent.named(agent, roots.get(0)), roots, acpApi);
  }

  public Companion companion() {
    return companion;
  }

  /**
   * Opens the chat's session, if there is a chat, on a thread of its own: a slow or absent daemon
   * delays nothing else, and the page shows why there is no session.
   */
  void startChat() {
    chat.ifPresent(c -> inBackground(c::connect, "companion4j-chat-connect"));
    AcpChat agent = acpChat;
    if (agent != null) {
      inBackground(() -> agent.connect(companion), "companion4j-acp-connect");
    }
  }

  private static void inBackground(Runnable work, String name) {
    Thread thread = new Thread(work, name);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    chatApi.shutdown();
    acpApi.shutdown();
    chat.ifPresent(DaemonChat::close);
    AcpChat agent = acpChat;
    if (agent != null) {
      agent.close();
    }
    editorApi.shutdown();
    companion.close();
  }
}
