package dev.companion4j.cli;

import dev.companion4j.cli.daemonchat.ChatApi;
import dev.companion4j.cli.editorapi.EditorApi;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.DaemonSource;
import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A companion for the headless host, with its routes mounted: the editor API, the review page and,
 * when it has a daemon to talk to, the chat. Closing it ends the routes' event streams before the
 * companion stops.
 */
final class HeadlessCompanion implements AutoCloseable {
  private final Companion companion;
  private final EditorApi editorApi;
  private final Optional<Chat> chat;

  /** The chat's two halves: the daemon side and the routes the page uses. */
  private record Chat(DaemonChat daemon, ChatApi api) {}

  private HeadlessCompanion(Companion companion, EditorApi editorApi, Optional<Chat> chat) {
    this.companion = companion;
    this.editorApi = editorApi;
    this.chat = chat;
  }

  /** Builds (does not start) a headless companion; {@code settings} may adjust the builder. */
  static HeadlessCompanion build(IdeInfo ideInfo, List<Path> roots, UnaryOperator<Companion.Builder> settings) {
    return build(ideInfo, roots, settings, Optional.empty());
  }

  /**
   * Builds (does not start) a headless companion that also chats with {@code daemon}, when the
   * daemon's workspace is one of {@code roots}.
   */
  static HeadlessCompanion build(
      IdeInfo ideInfo, List<Path> roots, UnaryOperator<Companion.Builder> settings, Optional<DaemonSource> daemon) {
    EditorApi editorApi = new EditorApi();
    HeadlessHost host = new HeadlessHost(ideInfo, roots, editorApi);
    Companion.Builder builder = settings.apply(Companion.builder(host)).route(EditorApi.pathSpec(), editorApi);
    ReviewPages.mount(builder);
    Optional<Chat> chat = daemon.map(source -> {
      ChatApi api = new ChatApi();
      DaemonChat daemonChat = new DaemonChat(source, roots.stream().map(Path::toString).toList(), api::publish);
      api.attach(daemonChat);
      builder.route(ChatApi.pathSpec(), api);
      return new Chat(daemonChat, api);
    });
    Companion companion = builder.build();
    editorApi.attach(companion);
    return new HeadlessCompanion(companion, editorApi, chat);
  }

  Companion companion() {
    return companion;
  }

  /**
   * Opens the chat's session, if there is a chat, on a thread of its own: a slow or absent daemon
   * delays nothing else, and the page shows why there is no session.
   */
  void startChat() {
    chat.ifPresent(c -> {
      Thread connecting = new Thread(c.daemon()::connect, "companion4j-chat-connect");
      connecting.setDaemon(true);
      connecting.start();
    });
  }

  @Override
  public void close() {
    chat.ifPresent(c -> {
      c.api().shutdown();
      c.daemon().close();
    });
    editorApi.shutdown();
    companion.close();
  }
}
