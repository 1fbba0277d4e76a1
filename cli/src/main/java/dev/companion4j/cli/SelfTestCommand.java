package dev.companion4j.cli;

import dev.companion4j.engine.Companion;
import dev.companion4j.engine.IdeInfo;
import dev.companion4j.engine.discovery.DiscoveryLocations;
import dev.companion4j.wire.SseDecoder;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * {@code companion4j selftest}: starts a companion in a scratch folder, holds a short CLI session
 * with it and stops. It checks an installation, and the launcher runs it once per build to record
 * what makes later starts fast (from JDK 25 on, an ahead-of-time cache with the classes and method
 * profiles of this session; before, a class-data-sharing archive). So the session is the work a
 * real one does first: several CLIs connecting as their {@code IdeClient} does, editor context
 * reaching them, proposals answered both ways and closed, the review page's first request.
 *
 * <p>The clients are bare HTTP/1.1 on loopback sockets, as the CLIs' are: a client library here
 * would put its own classes in the cache, which every later start would then load.
 */
@Command(
    name = "selftest",
    mixinStandardHelpOptions = true,
    description =
        "Checks this installation: starts a scratch companion, holds a short CLI session with it"
            + " (connect, context, diffs answered, the review page), stops.")
final class SelfTestCommand implements Callable<Integer> {
  /** How many CLIs connect at once, and how many proposals each makes. */
  private static final int CLIENTS = 4;

  private static final int PROPOSALS_PER_CLIENT = 60;
  private static final int EDITOR_MOVES = 8;

  /** Bounds every wait of the session, so a companion that stops answering fails the command. */
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"companion4j-selftest\",\"version\":\"1\"}}}";

  /** The largest notification the session's CLIs accept; the session's are a few KB. */
  private static final int MAX_EVENT_BYTES = 1 << 20;

  private static final Pattern DIFF_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f]{16})\"");

  @Override
  public Integer call() throws Exception {
    Path scratch = Files.createTempDirectory("companion4j-selftest");
    try {
      Path workspace = Files.createDirectories(scratch.resolve("workspace"));
      try (HeadlessCompanion headless = scratchCompanion(scratch, workspace)) {
        Companion companion = headless.companion();
        companion.start();
        try {
          exercise(companion.port(), companion.authToken(), workspace);
        } catch (SessionFailed failed) {
          System.err.println("selftest: " + failed.getMessage());
          return 1;
        }
      }
      System.out.println("selftest: ok");
      return 0;
    } finally {
      try (Stream<Path> files = Files.walk(scratch)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Builds (does not start) the companion {@code selftest} talks to: serving {@code workspace}, its
   * discovery files under {@code scratch}, where no CLI looks.
   */
  static HeadlessCompanion scratchCompanion(Path scratch, Path workspace) {
    return HeadlessCompanion.build(
        new IdeInfo("selftest", "Self-test"),
        List.of(workspace),
        builder ->
            builder.discoveryLocations(
                new DiscoveryLocations(scratch.resolve("tmp"), scratch.resolve("qwen"))));
  }

  /**
   * Holds the session against the companion at {@code port}, whose workspace is {@code workspace}
   * (files are written there); returns once every step was answered as a companion answers it.
   *
   * @throws SessionFailed when a step was not
   */
  static void exercise(int port, String token, Path workspace) throws Exception {
    try (Session session = new Session(port, token, workspace)) {
      session.run();
    }
  }

  /** A step of the session went wrong; its message says which and how. */
  static final class SessionFailed extends Exception {
    private static final long serialVersionUID = 1L;

    SessionFailed(String message) {
      super(message);
    }
  }

  /** The CLIs, the editor and the review page of one short session against one companion. */
  private static final class Session implements AutoCloseable {
    private final int port;
    private final String token;
    private final Path workspace;
    private final List<Cli> clis = new ArrayList<>();
    private final Http editor;

    /** A thread per CLI, so that they connect and propose at the same time, as real ones do. */
    private final ExecutorService together =
        Executors.newFixedThreadPool(
            CLIENTS,
            r -> {
              Thread t = new Thread(r, "companion4j-selftest-cli");
              t.setDaemon(true);
              return t;
            });

    Session(int port, String token, Path workspace) throws IOException {
      this.port = port;
      this.token = token;
      this.workspace = workspace;
      this.editor = new Http(port, token);
    }

    void run() throws Exception {
      Path file = Files.writeString(workspace.resolve("Main.java"), "class Main {\n}\n");
      // The first handshake alone, so that a companion that cannot talk MCP says so plainly.
      clis.add(Cli.connect(port, token));
      List<CompletableFuture<Cli>> more = new ArrayList<>();
      for (int i = 1; i < CLIENTS; i++) {
        more.add(CompletableFuture.supplyAsync(() -> Cli.connectUnchecked(port, token), together));
      }
      for (CompletableFuture<Cli> cli : more) {
        clis.add(done(cli));
      }
      for (Cli cli : clis) {
        cli.await("ide/contextUpdate");
      }

      String path = jsonString(file.toString());
      editor.expect(204, "POST", "/editor/events", "{\"type\":\"focus\",\"path\":" + path + "}");
      // Each event changes the context (an unchanged one reaches nobody), each awaited by every
      // CLI.
      for (int i = 1; i <= EDITOR_MOVES; i++) {
        editor.expect(
            204,
            "POST",
            "/editor/events",
            i % 2 == 0
                ? "{\"type\":\"cursor\",\"path\":" + path + ",\"line\":1,\"character\":" + i + "}"
                : "{\"type\":\"selection\",\"path\":"
                    + path
                    + ",\"text\":"
                    + jsonString("class Main".substring(0, i))
                    + ",\"range\":{\"startLine\":1,\"startCharacter\":1,"
                    + "\"endLine\":1,\"endCharacter\":"
                    + (i + 1)
                    + "}}");
        for (Cli cli : clis) {
          cli.await("ide/contextUpdate");
        }
      }

      List<CompletableFuture<Void>> proposing = new ArrayList<>();
      for (int c = 0; c < clis.size(); c++) {
        Cli cli = clis.get(c);
        Path own = Files.writeString(workspace.resolve("File" + c + ".java"), "class File {\n}\n");
        proposing.add(CompletableFuture.runAsync(() -> cli.proposeUnchecked(own), together));
      }
      for (CompletableFuture<Void> proposals : proposing) {
        done(proposals);
      }

      // Answered from the editor's side, one each way, as the page and the editors answer.
      answer(clis.get(0), file, "accept", "ide/diffAccepted");
      answer(clis.get(0), file, "reject", "ide/diffRejected");
      clis.get(0).openDiff(file, "class Main {\n  int closed;\n}\n");
      clis.get(0).tool("closeDiff", "{\"filePath\":" + path + "}");

      editor.expect(200, "GET", "/review/", null);
      editor.expect(200, "GET", "/editor/state", null);
      for (Cli cli : clis) {
        cli.end();
      }
    }

    private void answer(Cli cli, Path file, String verdict, String outcome) throws Exception {
      cli.openDiff(file, "class Main {\n  int " + verdict + "ed;\n}\n");
      Matcher id = DIFF_ID.matcher(editor.expect(200, "GET", "/editor/diffs", null));
      if (!id.find()) {
        throw new SessionFailed("no pending diff after openDiff");
      }
      editor.expect(204, "POST", "/editor/diffs/" + id.group(1) + "/" + verdict, null);
      cli.await(outcome);
    }

    /** What a CLI's thread gave, its failure as a failed step when it was one. */
    private static <T> T done(CompletableFuture<T> work) throws Exception {
      try {
        return work.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof SessionFailed failed ? failed : e;
      }
    }

    @Override
    public void close() throws IOException {
      together.shutdownNow();
      for (Cli cli : clis) {
        cli.close();
      }
      editor.close();
    }
  }

  /** One CLI's MCP session: requests on one connection, its notification stream on another. */
  private static final class Cli implements AutoCloseable {
    private final Http requests;
    private final String sessionId;
    private final Socket stream;
    private final BlockingQueue<String> notifications = new LinkedBlockingQueue<>();
    private int nextId = 2;

    private Cli(Http requests, String sessionId, Socket stream) {
      this.requests = requests;
      this.sessionId = sessionId;
      this.stream = stream;
    }

    /** What the CLIs' IdeClient does: initialize, initialized, the GET stream, tools/list. */
    static Cli connect(int port, String token) throws IOException, SessionFailed {
      Http requests = new Http(port, token);
      Http.Response init = requests.exchange("POST", "/mcp", null, INITIALIZE);
      if (init.status() != 200 || !init.body().contains("companion4j")) {
        requests.close();
        throw new SessionFailed("the MCP handshake failed with HTTP " + init.status());
      }
      String sessionId = init.header("mcp-session-id");
      if (sessionId == null) {
        requests.close();
        throw new SessionFailed("the MCP handshake gave no session id");
      }
      requests.expectMcp(
          202, sessionId, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      Socket stream = requests.openStream(sessionId);
      Cli cli = new Cli(requests, sessionId, stream);
      cli.listen();
      String tools = cli.request("tools/list", "{}");
      if (!tools.contains("openDiff")) {
        cli.close();
        throw new SessionFailed("tools/list does not offer openDiff");
      }
      return cli;
    }

    static Cli connectUnchecked(int port, String token) {
      try {
        return connect(port, token);
      } catch (IOException | SessionFailed e) {
        throw new CompletionException(e);
      }
    }

    private void listen() {
      Thread reader =
          new Thread(
              () -> {
                try {
                  Http.readEvents(stream.getInputStream(), notifications::add);
                } catch (IOException | IllegalStateException ended) {
                  // The session ended, or sent an event no CLI would read: the next wait fails.
                }
              },
              "companion4j-selftest-stream");
      reader.setDaemon(true);
      reader.start();
    }

    /** Waits for the next notification naming {@code method}, skipping others. */
    void await(String method) throws InterruptedException, SessionFailed {
      long deadline = System.nanoTime() + WAIT.toNanos();
      String data;
      do {
        data = notifications.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (data == null) {
          throw new SessionFailed("no " + method + " reached a connected CLI within " + WAIT);
        }
      } while (!data.contains("\"" + method + "\""));
    }

    void proposeUnchecked(Path file) {
      try {
        for (int i = 0; i < PROPOSALS_PER_CLIENT; i++) {
          openDiff(file, "class File {\n  int proposal" + i + ";\n}\n");
        }
        tool("closeDiff", "{\"filePath\":" + jsonString(file.toString()) + "}");
      } catch (IOException | SessionFailed e) {
        throw new CompletionException(e);
      }
    }

    void openDiff(Path file, String newContent) throws IOException, SessionFailed {
      tool(
          "openDiff",
          "{\"filePath\":"
              + jsonString(file.toString())
              + ",\"newContent\":"
              + jsonString(newContent)
              + "}");
    }

    void tool(String name, String arguments) throws IOException, SessionFailed {
      String answer =
          request("tools/call", "{\"name\":\"" + name + "\",\"arguments\":" + arguments + "}");
      if (answer.contains("\"isError\":true")) {
        throw new SessionFailed(name + " failed: " + answer);
      }
    }

    private String request(String method, String params) throws IOException, SessionFailed {
      int id = nextId++;
      return requests.expectMcp(
          200,
          sessionId,
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + id
              + ",\"method\":\""
              + method
              + "\",\"params\":"
              + params
              + "}");
    }

    /** Ends the session as a CLI that exits does. */
    void end() throws IOException, SessionFailed {
      Http.Response ended = requests.exchange("DELETE", "/mcp", sessionId, null);
      if (ended.status() / 100 != 2) {
        throw new SessionFailed("ending the MCP session failed with HTTP " + ended.status());
      }
    }

    @Override
    public void close() throws IOException {
      try {
        stream.close();
      } finally {
        requests.close();
      }
    }
  }

  /** HTTP/1.1 on one keep-alive loopback connection, one request at a time. */
  private static final class Http implements AutoCloseable {
    record Response(int status, List<String> head, String body) {
      String header(String name) {
        String prefix = name + ":";
        return head.stream()
            .filter(line -> line.toLowerCase(Locale.ROOT).startsWith(prefix))
            .map(line -> line.substring(prefix.length()).trim())
            .findFirst()
            .orElse(null);
      }
    }

    private final int port;
    private final String token;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Http(int port, String token) throws IOException {
      this.port = port;
      this.token = token;
      this.socket = open(port);
      this.in = new BufferedInputStream(socket.getInputStream());
      this.out = socket.getOutputStream();
    }

    private static Socket open(int port) throws IOException {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout((int) WAIT.toMillis());
      return socket;
    }

    String expect(int status, String method, String path, String body)
        throws IOException, SessionFailed {
      Response response = exchange(method, path, null, body);
      if (response.status() != status) {
        throw new SessionFailed(method + " " + path + " answered HTTP " + response.status());
      }
      return response.body();
    }

    String expectMcp(int status, String sessionId, String body) throws IOException, SessionFailed {
      Response response = exchange("POST", "/mcp", sessionId, body);
      if (response.status() != status) {
        throw new SessionFailed(
            "an MCP request answered HTTP " + response.status() + ": " + response.body());
      }
      return response.body();
    }

    Response exchange(String method, String path, String sessionId, String body)
        throws IOException {
      byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      out.write(
          (head(method, path, sessionId)
                  + (body == null ? "" : "Content-Type: application/json\r\n")
                  + "Content-Length: "
                  + bytes.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      return read(in);
    }

    /** Opens the session's notification stream on a connection of its own. */
    Socket openStream(String sessionId) throws IOException {
      Socket stream = open(port);
      // A stream is quiet between notifications; every wait on it is bounded by its reader's poll.
      stream.setSoTimeout(0);
      stream
          .getOutputStream()
          .write(head("GET", "/mcp", sessionId).getBytes(StandardCharsets.US_ASCII));
      stream.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
      return stream;
    }

    private String head(String method, String path, String sessionId) {
      return method
          + " "
          + path
          + " HTTP/1.1\r\nHost: 127.0.0.1:"
          + port
          + "\r\nAuthorization: Bearer "
          + token
          + "\r\nAccept: application/json, text/event-stream\r\n"
          + (sessionId == null ? "" : "Mcp-Session-Id: " + sessionId + "\r\n");
    }

    private static Response read(InputStream in) throws IOException {
      List<String> head = readHead(in);
      String[] status = head.get(0).split(" ", 3);
      Response bare = new Response(Integer.parseInt(status[1]), head, "");
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      if ("chunked".equalsIgnoreCase(bare.header("transfer-encoding"))) {
        byte[] chunk;
        while ((chunk = readChunk(in)) != null) {
          body.write(chunk);
        }
      } else {
        String length = bare.header("content-length");
        body.write(readExactly(in, length == null ? 0 : Integer.parseInt(length)));
      }
      return new Response(bare.status(), head, body.toString(StandardCharsets.UTF_8));
    }

    /**
     * Reads a server-sent event stream's response, handing each event's data to {@code sink}; an
     * event over {@link #MAX_EVENT_BYTES} (none a companion sends in this session) fails the read.
     */
    static void readEvents(InputStream raw, Consumer<String> sink) throws IOException {
      InputStream in = new BufferedInputStream(raw);
      List<String> head = readHead(in);
      SseDecoder events =
          new SseDecoder(
              MAX_EVENT_BYTES,
              SseDecoder.Listener.of(
                  event -> sink.accept(event.data()),
                  () -> {
                    throw new IllegalStateException("an event over " + MAX_EVENT_BYTES + " bytes");
                  }));
      // Chunked, or (as Jetty sends a stream with no length) plain bytes until the connection ends.
      if ("chunked".equalsIgnoreCase(new Response(0, head, "").header("transfer-encoding"))) {
        byte[] chunk;
        while ((chunk = readChunk(in)) != null) {
          events.feed(chunk, 0, chunk.length);
        }
        events.finish();
      } else {
        events.read(in);
      }
    }

    private static List<String> readHead(InputStream in) throws IOException {
      List<String> lines = new ArrayList<>();
      String line;
      while (!(line = readLine(in)).isEmpty()) {
        lines.add(line);
      }
      if (lines.isEmpty()) {
        throw new IOException("an empty HTTP response");
      }
      return lines;
    }

    /** The next chunk of a chunked body, or null after the last. */
    private static byte[] readChunk(InputStream in) throws IOException {
      String size = readLine(in);
      int semicolon = size.indexOf(';');
      int length = Integer.parseInt(semicolon < 0 ? size : size.substring(0, semicolon), 16);
      byte[] chunk = readExactly(in, length);
      readLine(in);
      return length == 0 ? null : chunk;
    }

    private static String readLine(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) != '\n') {
        if (c == -1) {
          throw new IOException("the connection closed mid-response");
        }
        if (c != '\r') {
          line.write(c);
        }
      }
      return line.toString(StandardCharsets.US_ASCII);
    }

    private static byte[] readExactly(InputStream in, int length) throws IOException {
      byte[] bytes = in.readNBytes(length);
      if (bytes.length != length) {
        throw new IOException("the connection closed mid-response");
      }
      return bytes;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static String jsonString(String text) {
    StringBuilder json = new StringBuilder("\"");
    JsonStringEncoder.getInstance().quoteAsString(text, json);
    return json.append('"').toString();
  }
}
