package dev.companion4j.cli.bridge;

import dev.companion4j.engine.ClientProcess;
import dev.companion4j.wire.LineSplitter;
import dev.companion4j.wire.SseDecoder;
import dev.companion4j.wire.SseEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code companion4j bridge}: a CLI's stdio MCP server that relays every message to a running
 * companion's Streamable HTTP endpoint and back, translating paths on the way ({@link
 * MessagePaths}). The CLI starts it (a discovery file's {@code stdio} entry, or its {@code
 * *_IDE_SERVER_STDIO_*} variables) and it lives as long as the CLI's session: stdin's end ends the
 * companion's session and the bridge ({@link #EXIT_ENDED}); a companion that cannot be reached or
 * goes away ends it with one line on stderr, and the CLI sees its server end.
 *
 * <p>The HTTP side is {@code java.net.http}, not the MCP SDK's {@code
 * HttpClientStreamableHttpTransport}: that transport turns a refusal into an exception carrying the
 * status only (no request id to answer, not the companion's reason), resumes or quietly drops the
 * notification stream (so the companion's departure cannot be seen), and hands messages over
 * re-typed as the SDK's records, not as the JSON the companion sent.
 *
 * <p>Threads: stdin is read on {@code companion4j-bridge-stdin}, which waits only for the
 * handshake's answer and for the companion to take each notification and answer (202); requests go
 * out without waiting, and their answers (JSON or an event stream) are read without blocking, in
 * the HTTP client's threads; the session's notification stream ({@code GET /mcp}) is read on {@code
 * companion4j-bridge-stream}. Writes to stdout are serialised; one that blocks holds only the
 * thread of a message bound for the CLI that stopped reading.
 */
final class Bridge {
  /** The CLI ended the session: stdin closed, or stdout did. */
  static final int EXIT_ENDED = 0;

  /** No companion was found, reached, or willing to start a session. */
  static final int EXIT_UNREACHABLE = 1;

  /** The command line was wrong, or its token file is not the owner's alone. */
  static final int EXIT_USAGE = 2;

  /** The companion went away after the session began. */
  static final int EXIT_LOST = 3;

  /** One message either way; above the companion's own 10 MB body limit. */
  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private static final String MAX_MESSAGE = "16 MiB";
  private static final int MAX_ERROR_BYTES = 64 * 1024;
  private static final int MAX_REASON_CHARS = 500;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * How long the companion may take to start answering the handshake, a notification or the stream.
   */
  private static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration GOODBYE_TIMEOUT = Duration.ofSeconds(2);

  private final CompanionTarget target;
  private final MessagePaths paths;
  private final Optional<ClientProcess> program;
  private final OutputStream stdout;
  private final PrintStream stderr;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(CONNECT_TIMEOUT)
          .build();

  /** The CLI's requests the companion has not answered yet, by {@link JsonRpc#key}. */
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();

  private final AtomicBoolean finishing = new AtomicBoolean();
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private volatile String sessionId;
  private volatile String protocolVersion;

  /** Read and written on {@code companion4j-bridge-stdin} only. */
  private boolean streamRequested;

  /** Guarded by this. */
  private boolean sessionEnded;

  private volatile boolean closing;
  private volatile InputStream stream;

  /** A request of the CLI's in flight, and the path arguments translated in it. */
  private record Pending(JsonNode id, String method, List<MessagePaths.Translated> translated) {}

  private Bridge(
      CompanionTarget target,
      PathMap paths,
      Optional<ClientProcess> program,
      OutputStream stdout,
      PrintStream stderr) {
    this.target = target;
    this.paths = new MessagePaths(paths);
    this.program = program;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /**
   * Relays between {@code in}/{@code out} and the companion until one of them ends.
   *
   * @param program the CLI to name in the handshake, when known
   * @return one of the {@code EXIT_} codes
   */
  static int run(
      CompanionTarget target,
      PathMap paths,
      Optional<ClientProcess> program,
      InputStream in,
      OutputStream out,
      PrintStream err) {
    Bridge bridge = new Bridge(target, paths, program, out, err);
    // A CLI closing its stdio server may signal it (Gemini CLI does at once): the session still
    // ends.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(bridge::endSession, "companion4j-bridge-goodbye"));
    Thread reader = new Thread(() -> bridge.readStdin(in), "companion4j-bridge-stdin");
    reader.setDaemon(true);
    reader.start();
    int code = bridge.exit.join();
    if (code == EXIT_ENDED) {
      bridge.endSession();
    } else {
      bridge.abandonSession();
    }
    return code;
  }

  // ---- the CLI's side ---------------------------------------------------------------------------

  /** Runs on {@code companion4j-bridge-stdin}. */
  private void readStdin(InputStream in) {
    LineSplitter lines =
        new LineSplitter(
            MAX_MESSAGE_BYTES,
            false,
            new LineSplitter.Lines() {
              @Override
              public void line(String line) {
                fromCli(line);
              }

              @Override
              public void tooLong() {
                emit(
                    JsonRpc.error(
                        null,
                        JsonRpc.INVALID_REQUEST,
                        "Invalid Request: a message longer than " + MAX_MESSAGE + " was dropped"));
              }
            });
    byte[] buffer = new byte[64 * 1024];
    try {
      int n;
      while (!exit.isDone() && (n = in.read(buffer)) >= 0) {
        lines.feed(buffer, 0, n);
      }
      lines.finish();
    } catch (IOException e) {
      // A closed stdin is the CLI's goodbye, however it closed.
    }
    finish(EXIT_ENDED, null);
  }

  /** One line from the CLI; runs on {@code companion4j-bridge-stdin}. */
  private void fromCli(String line) {
    if (line.isBlank() || exit.isDone()) {
      return;
    }
    JsonNode message;
    JsonRpc.Kind kind;
    try {
      message = JsonRpc.JSON.readTree(line);
    } catch (JacksonException e) {
      emit(
          JsonRpc.error(
              null,
              JsonRpc.PARSE_ERROR,
              "Parse error: the line is not JSON: " + e.getOriginalMessage()));
      return;
    }
    try {
      kind = JsonRpc.kind(message);
    } catch (JsonRpc.InvalidMessage e) {
      emit(JsonRpc.error(e.id(), JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage()));
      return;
    }
    if (kind == JsonRpc.Kind.REQUEST) {
      request((ObjectNode) message);
      return;
    }
    post(message, null).join();
    if ("notifications/initialized".equals(message.path("method").asString(null))
        && !streamRequested
        && !exit.isDone()) {
      // Opened only now, as the CLIs' own HTTP transport does: the CLIs listen for notifications
      // once their handshake is over, and an earlier one would be lost.
      streamRequested = true;
      Thread reader = new Thread(this::readStream, "companion4j-bridge-stream");
      reader.setDaemon(true);
      reader.start();
    }
  }

  /** A request from the CLI; runs on {@code companion4j-bridge-stdin}. */
  private void request(ObjectNode request) {
    JsonNode id = request.get("id");
    String method = request.get("method").asString();
    boolean handshake = method.equals("initialize");
    if (handshake && sessionId != null) {
      emit(
          JsonRpc.error(
              id,
              JsonRpc.INVALID_REQUEST,
              "Invalid Request: this bridge already has a session with the companion; start another bridge for another"));
      return;
    }
    if (handshake
        && program.isPresent()
        && request.path("params").path("clientInfo") instanceof ObjectNode info) {
      info.put("name", program.get().program());
      info.put("version", program.get().programVersion());
    }
    Pending p = new Pending(id, method, paths.toCompanion(request));
    pending.put(JsonRpc.key(id), p);
    CompletableFuture<Void> answered = post(request, p);
    if (handshake) {
      // Everything after the handshake needs its session id.
      answered.join();
    }
  }

  /**
   * Writes one message to the CLI. Runs on whichever thread has it for the CLI; writes are
   * serialised. A CLI that closed its end has ended the session.
   */
  private void emit(JsonNode message) {
    byte[] bytes = JsonRpc.JSON.writeValueAsBytes(message);
    synchronized (stdout) {
      try {
        stdout.write(bytes);
        stdout.write('\n');
        stdout.flush();
      } catch (IOException e) {
        finish(EXIT_ENDED, null);
      }
    }
  }

  // ---- the companion's side
  // -----------------------------------------------------------------------

  /**
   * Posts one message; the future completes once its answer was relayed (or answered for). The body
   * handler and everything it calls run in the HTTP client's threads.
   *
   * @param request the pending request, or null for a notification or an answer
   */
  private CompletableFuture<Void> post(JsonNode message, Pending request) {
    HttpRequest.Builder builder =
        authorized(HttpRequest.newBuilder(target.endpoint()))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpc.JSON.writeValueAsBytes(message)));
    if (request == null || request.method().equals("initialize")) {
      // These hold up stdin until answered. Other requests may take as long as the CLI lets them.
      builder.timeout(ACCEPT_TIMEOUT);
    }
    return http.sendAsync(builder.build(), info -> answer(info, message, request))
        .handle(
            (response, failure) -> {
              if (failure != null) {
                unreachable(request, failure);
              }
              return null;
            });
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder builder) {
    builder.header("Authorization", "Bearer " + target.token());
    String session = sessionId;
    if (session != null) {
      builder.header("Mcp-Session-Id", session);
    }
    String version = protocolVersion;
    if (version != null) {
      builder.header("MCP-Protocol-Version", version);
    }
    return builder;
  }

  /** Chooses how to read the companion's answer to a POST; runs in the HTTP client's threads. */
  private HttpResponse.BodySubscriber<Void> answer(
      HttpResponse.ResponseInfo info, JsonNode message, Pending request) {
    int status = info.statusCode();
    if (status / 100 != 2) {
      return BodyReaders.collect(
          MAX_ERROR_BYTES, false, body -> refused(status, body, message, request));
    }
    if (request != null && request.method().equals("initialize")) {
      info.headers().firstValue("Mcp-Session-Id").ifPresent(id -> sessionId = id);
    }
    String type = info.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
    if (type.startsWith("text/event-stream")) {
      SseDecoder events = fromCompanionStream();
      return BodyReaders.streaming(
          events::feed,
          () -> {
            events.finish();
            unanswered(request);
          });
    }
    if (type.startsWith("application/json")) {
      return BodyReaders.collect(
          MAX_MESSAGE_BYTES,
          true,
          body -> {
            if (body != null) {
              fromCompanion(new String(body, StandardCharsets.UTF_8));
            } else {
              note(
                  "dropped an answer from " + target.description() + " longer than " + MAX_MESSAGE);
            }
            unanswered(request);
          });
    }
    return BodyReaders.streaming(b -> {}, () -> unanswered(request));
  }

  /**
   * The companion ended its answer to a request's POST without answering the request: the CLI must
   * hear of it once. Runs in the HTTP client's threads.
   */
  private void unanswered(Pending request) {
    if (request != null && pending.remove(JsonRpc.key(request.id())) != null) {
      emit(
          JsonRpc.error(
              request.id(),
              JsonRpc.INTERNAL_ERROR,
              target.description()
                  + " ended its answer to "
                  + request.method()
                  + " without a result"));
    }
  }

  /** The companion refused a POST with an HTTP error; runs in the HTTP client's threads. */
  private void refused(int status, byte[] body, JsonNode message, Pending request) {
    JsonNode error = parse(body).map(json -> json.path("error")).orElse(JsonRpc.JSON.missingNode());
    String reason =
        oneLine(
            error.isString()
                ? error.asString()
                : error.path("message").isString()
                    ? error.path("message").asString()
                    : new String(body, StandardCharsets.UTF_8));
    String said = "HTTP " + status + (reason.isEmpty() ? "" : ": " + reason);
    if (request != null && pending.remove(JsonRpc.key(request.id())) != null) {
      int code =
          error.path("code").isIntegralNumber()
              ? error.path("code").asInt()
              : status >= 500 ? JsonRpc.INTERNAL_ERROR : JsonRpc.INVALID_REQUEST;
      ObjectNode answer =
          JsonRpc.error(request.id(), code, reason.isEmpty() ? "HTTP " + status : reason);
      MessagePaths.answerToCli(answer, request.translated());
      emit(answer);
    } else if (request == null) {
      note(target.description() + " refused " + JsonRpc.describe(message) + " (" + said + ")");
    }
    if (request != null && request.method().equals("initialize")) {
      finish(EXIT_UNREACHABLE, target.description() + " refused the handshake (" + said + ")");
    } else if (status == 404 && sessionId != null) {
      finish(EXIT_LOST, target.description() + " no longer knows this session (" + said + ")");
    } else if (status == 401 || status == 403) {
      finish(EXIT_LOST, target.description() + " no longer takes the token (" + said + ")");
    }
  }

  /** A POST that failed before its answer was read in full; runs in the HTTP client's threads. */
  private void unreachable(Pending request, Throwable failure) {
    String why = why(failure);
    if (request != null && pending.remove(JsonRpc.key(request.id())) != null) {
      emit(
          JsonRpc.error(
              request.id(),
              JsonRpc.INTERNAL_ERROR,
              "cannot reach " + target.description() + ": " + why));
    }
    if (sessionId == null) {
      finish(EXIT_UNREACHABLE, "cannot reach " + target.description() + ": " + why);
    } else {
      finish(EXIT_LOST, "lost " + target.description() + ": " + why);
    }
  }

  /** Reads the session's notification stream; runs on {@code companion4j-bridge-stream}. */
  private void readStream() {
    HttpRequest request =
        authorized(HttpRequest.newBuilder(target.endpoint()))
            .header("Accept", "text/event-stream")
            .timeout(ACCEPT_TIMEOUT)
            .GET()
            .build();
    try {
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() == 405) {
          note(
              target.description()
                  + " offers no notification stream: no context and no diff outcome will reach the CLI");
          return;
        }
        if (response.statusCode() != 200) {
          String reason =
              oneLine(new String(body.readNBytes(MAX_ERROR_BYTES), StandardCharsets.UTF_8));
          finish(
              EXIT_LOST,
              target.description()
                  + " refused the notification stream (HTTP "
                  + response.statusCode()
                  + (reason.isEmpty() ? "" : ": " + reason)
                  + ")");
          return;
        }
        stream = body;
        if (closing) {
          return;
        }
        fromCompanionStream().read(body);
      }
      if (!closing) {
        finish(EXIT_LOST, target.description() + " ended the notification stream");
      }
    } catch (IOException e) {
      if (!closing) {
        finish(EXIT_LOST, "lost " + target.description() + ": " + why(e));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Hands each message of an event stream from the companion to {@link #fromCompanion}: events of
   * other names, ids and retries are not MCP's, and the bridge never resumes a stream.
   */
  private SseDecoder fromCompanionStream() {
    return new SseDecoder(
        MAX_MESSAGE_BYTES,
        new SseDecoder.Listener() {
          @Override
          public void event(SseEvent event) {
            if (event.isMessage()) {
              fromCompanion(event.data());
            }
          }

          @Override
          public void tooLarge() {
            note("dropped a message from " + target.description() + " longer than " + MAX_MESSAGE);
          }
        });
  }

  /**
   * One message from the companion, bound for the CLI: from a POST's answer (in the HTTP client's
   * threads) or from the stream (on {@code companion4j-bridge-stream}).
   */
  private void fromCompanion(String data) {
    JsonNode message;
    JsonRpc.Kind kind;
    try {
      message = JsonRpc.JSON.readTree(data);
      kind = JsonRpc.kind(message);
    } catch (JacksonException | JsonRpc.InvalidMessage e) {
      note(
          "dropped a message from "
              + target.description()
              + " that is not JSON-RPC: "
              + e.getMessage());
      return;
    }
    if (kind == JsonRpc.Kind.RESPONSE) {
      Pending request = pending.remove(JsonRpc.key(message.get("id")));
      if (request == null) {
        note(
            "dropped an answer from "
                + target.description()
                + " to request "
                + message.get("id")
                + ", which is answered already or was never asked");
        return;
      }
      MessagePaths.answerToCli(message, request.translated());
      if (request.method().equals("initialize")) {
        protocolVersion = message.path("result").path("protocolVersion").asString(null);
      }
    } else if (kind == JsonRpc.Kind.NOTIFICATION) {
      paths.notificationToCli(message);
    }
    emit(message);
  }

  private static Optional<JsonNode> parse(byte[] body) {
    try {
      return Optional.of(JsonRpc.JSON.readTree(body));
    } catch (JacksonException e) {
      return Optional.empty();
    }
  }

  // ---- the end
  // ------------------------------------------------------------------------------------

  /**
   * Ends the companion's session (DELETE, then the stream) once; on the main thread, or the
   * shutdown hook on a signal. Whichever comes second waits for the first: a CLI that signals the
   * bridge also closes its stdin, and the JVM must not halt while the first still says goodbye.
   */
  private synchronized void endSession() {
    String session = sessionId;
    if (sessionEnded || session == null) {
      closeStream();
      return;
    }
    sessionEnded = true;
    // The companion closes the stream on DELETE; that end is expected.
    closing = true;
    try {
      http.send(
          authorized(HttpRequest.newBuilder(target.endpoint()))
              .timeout(GOODBYE_TIMEOUT)
              .DELETE()
              .build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // The companion is gone already, or does not take DELETE: closing the stream ends the session
      // too.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeStream();
  }

  /** The companion is gone or never had a session: nothing to say goodbye to. */
  private synchronized void abandonSession() {
    sessionEnded = true;
    closeStream();
  }

  private void closeStream() {
    closing = true;
    InputStream s = stream;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // Closing is all that is wanted.
      }
    }
  }

  /**
   * Ends the bridge with {@code code}; the first caller's line is the one the user reads. Any
   * thread.
   */
  private void finish(int code, String line) {
    if (finishing.compareAndSet(false, true)) {
      if (line != null) {
        note(line);
      }
      exit.complete(code);
    }
  }

  /** One line on stderr, for the user reading the CLI's log. Any thread. */
  private void note(String line) {
    stderr.println("companion4j bridge: " + line);
    stderr.flush();
  }

  /**
   * A reason the companion gave, fit for one line of a message: its white space collapsed, its
   * length bounded.
   */
  private static String oneLine(String reason) {
    String line = reason.strip().replaceAll("\\s+", " ");
    return line.length() <= MAX_REASON_CHARS ? line : line.substring(0, MAX_REASON_CHARS) + "…";
  }

  /** Why a connection failed, in words: the HTTP client's own exceptions often carry no message. */
  private static String why(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException) {
        return "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s";
      }
      if (t instanceof HttpTimeoutException) {
        return "no answer within " + ACCEPT_TIMEOUT.toSeconds() + " s";
      }
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
