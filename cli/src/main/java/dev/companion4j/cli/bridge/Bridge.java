package dev.companion4j.cli.bridge;

import dev.companion4j.engine.ClientProcess;
import dev.companion4j.wire.SseDecoder;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>This class relays messages and answers for them; the CLI's stdio is {@link CliPipe}'s, the
 * session's headers and goodbye {@link CompanionSession}'s, its notification stream {@link
 * NotificationStream}'s, and the exit code and stderr {@link Ending}'s.
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

  static final String MAX_MESSAGE = "16 MiB";
  static final int MAX_ERROR_BYTES = 64 * 1024;
  private static final int MAX_REASON_CHARS = 500;

  private final CompanionTarget target;
  private final MessagePaths paths;
  private final Optional<ClientProcess> program;
  private final Ending ending;
  private final CliPipe cli;
  private final CompanionSession session;
  private final NotificationStream stream;

  /** The CLI's requests the companion has not answered yet, by {@link JsonRpc#key}. */
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();

  /** Read and written on {@code companion4j-bridge-stdin} only. */
  private boolean streamRequested;

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
    this.ending = new Ending(stderr);
    this.cli = new CliPipe(stdout, ending);
    this.session = new CompanionSession(target);
    this.stream = new NotificationStream(target, session, ending, this::fromCompanionStream);
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
        .addShutdownHook(
            new Thread(() -> bridge.session.end(bridge.stream), "companion4j-bridge-goodbye"));
    bridge.cli.start(in, bridge::fromCli);
    int code = bridge.ending.await();
    if (code == EXIT_ENDED) {
      bridge.session.end(bridge.stream);
    } else {
      bridge.session.abandon(bridge.stream);
    }
    return code;
  }

  // ---- the CLI's side ---------------------------------------------------------------------------

  /** One line from the CLI; runs on {@code companion4j-bridge-stdin}. */
  private void fromCli(String line) {
    if (line.isBlank() || ending.isDone()) {
      return;
    }
    JsonNode message;
    JsonRpc.Kind kind;
    try {
      message = JsonRpc.JSON.readTree(line);
    } catch (JacksonException e) {
      cli.emit(
          JsonRpc.error(
              null,
              JsonRpc.PARSE_ERROR,
              "Parse error: the line is not JSON: " + e.getOriginalMessage()));
      return;
    }
    try {
      kind = JsonRpc.kind(message);
    } catch (JsonRpc.InvalidMessage e) {
      cli.emit(
          JsonRpc.error(e.id(), JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage()));
      return;
    }
    if (kind == JsonRpc.Kind.REQUEST) {
      request((ObjectNode) message);
      return;
    }
    post(message, null).join();
    if ("notifications/initialized".equals(message.path("method").asString(null))
        && !streamRequested
        && !ending.isDone()) {
      // Opened only now, as the CLIs' own HTTP transport does: the CLIs listen for notifications
      // once their handshake is over, and an earlier one would be lost.
      streamRequested = true;
      stream.start();
    }
  }

  /** A request from the CLI; runs on {@code companion4j-bridge-stdin}. */
  private void request(ObjectNode request) {
    JsonNode id = request.get("id");
    String method = request.get("method").asString();
    boolean handshake = method.equals("initialize");
    if (handshake && session.started()) {
      cli.emit(
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
        session
            .request()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JsonRpc.JSON.writeValueAsBytes(message)));
    if (request == null || request.method().equals("initialize")) {
      // These hold up stdin until answered. Other requests may take as long as the CLI lets them.
      builder.timeout(CompanionSession.ACCEPT_TIMEOUT);
    }
    return session
        .http()
        .sendAsync(builder.build(), info -> answer(info, message, request))
        .handle(
            (response, failure) -> {
              if (failure != null) {
                unreachable(request, failure);
              }
              return null;
            });
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
      info.headers().firstValue("Mcp-Session-Id").ifPresent(session::sessionId);
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
              ending.note(
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
      cli.emit(
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
      cli.emit(answer);
    } else if (request == null) {
      ending.note(
          target.description() + " refused " + JsonRpc.describe(message) + " (" + said + ")");
    }
    if (request != null && request.method().equals("initialize")) {
      ending.finish(
          EXIT_UNREACHABLE, target.description() + " refused the handshake (" + said + ")");
    } else if (status == 404 && session.started()) {
      ending.finish(
          EXIT_LOST, target.description() + " no longer knows this session (" + said + ")");
    } else if (status == 401 || status == 403) {
      ending.finish(EXIT_LOST, target.description() + " no longer takes the token (" + said + ")");
    }
  }

  /** A POST that failed before its answer was read in full; runs in the HTTP client's threads. */
  private void unreachable(Pending request, Throwable failure) {
    String why = CompanionSession.why(failure);
    if (request != null && pending.remove(JsonRpc.key(request.id())) != null) {
      cli.emit(
          JsonRpc.error(
              request.id(),
              JsonRpc.INTERNAL_ERROR,
              "cannot reach " + target.description() + ": " + why));
    }
    if (!session.started()) {
      ending.finish(EXIT_UNREACHABLE, "cannot reach " + target.description() + ": " + why);
    } else {
      ending.finish(EXIT_LOST, "lost " + target.description() + ": " + why);
    }
  }

  /**
   * Hands each message of an event stream from the companion to {@link #fromCompanion}: events of
   * other names, ids and retries are not MCP's, and the bridge never resumes a stream.
   */
  private SseDecoder fromCompanionStream() {
    return new SseDecoder(
        MAX_MESSAGE_BYTES,
        SseDecoder.Listener.of(
            event -> {
              if (event.isMessage()) {
                fromCompanion(event.data());
              }
            },
            () -> {
              ending.note(
                  "dropped a message from " + target.description() + " longer than " + MAX_MESSAGE);
            }));
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
      ending.note(
          "dropped a message from "
              + target.description()
              + " that is not JSON-RPC: "
              + e.getMessage());
      return;
    }
    if (kind == JsonRpc.Kind.RESPONSE) {
      Pending request = pending.remove(JsonRpc.key(message.get("id")));
      if (request == null) {
        ending.note(
            "dropped an answer from "
                + target.description()
                + " to request "
                + message.get("id")
                + ", which is answered already or was never asked");
        return;
      }
      MessagePaths.answerToCli(message, request.translated());
      if (request.method().equals("initialize")) {
        session.protocolVersion(message.path("result").path("protocolVersion").asString(null));
      }
    } else if (kind == JsonRpc.Kind.NOTIFICATION) {
      paths.notificationToCli(message);
    }
    cli.emit(message);
  }

  private static Optional<JsonNode> parse(byte[] body) {
    try {
      return Optional.of(JsonRpc.JSON.readTree(body));
    } catch (JacksonException e) {
      return Optional.empty();
    }
  }

  /**
   * A reason the companion gave, fit for one line of a message: its white space collapsed, its
   * length bounded.
   */
  static String oneLine(String reason) {
    String line = reason.strip().replaceAll("\\s+", " ");
    return line.length() <= MAX_REASON_CHARS ? line : line.substring(0, MAX_REASON_CHARS) + "…";
  }
}
