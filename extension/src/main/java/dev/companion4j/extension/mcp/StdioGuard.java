package dev.companion4j.extension.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Stands between the CLI's pipes and the SDK's stdio transport, which stops reading for good at the
 * first line it cannot turn into a message. The SDK reads only lines that passed the SDK's own
 * parsing here, re-written on one line; every other line is answered here with a JSON-RPC error, on
 * the same output as the SDK's answers, one whole line at a time. At the end of the input the
 * answers still owed are awaited, then the SDK sees the end too and {@link #ended} completes.
 */
final class StdioGuard {
  /** A message to this server is a few hundred bytes; a megabyte is thousands of times that. */
  static final int MAX_LINE_BYTES = 1 << 20;

  /**
   * How long the end of the input waits for answers owed: the longest call (open_file) takes 10 s
   * at most.
   */
  private static final Duration DRAIN_BOUND = Duration.ofSeconds(12);

  private static final int PARSE_ERROR = -32700;
  private static final int INVALID_REQUEST = -32600;
  private static final int INVALID_PARAMS = -32602;

  private final InputStream raw;
  private final OutputStream rawOut;
  private final JsonMapper json;
  private final McpJsonMapper sdkJson;

  /** The ids of the requests handed to the SDK and not answered yet, as JSON text. */
  private final Set<String> owed = ConcurrentHashMap.newKeySet();

  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final InputStream in = new Lines();
  private final OutputStream out = new WholeLines();

  StdioGuard(InputStream raw, OutputStream rawOut, JsonMapper json, McpJsonMapper sdkJson) {
    this.raw = raw;
    this.rawOut = rawOut;
    this.json = json;
    this.sdkJson = sdkJson;
  }

  /** What the SDK reads: well-formed messages only, one per line. */
  InputStream in() {
    return in;
  }

  /** What the SDK writes to: passed on a whole line at a time. */
  OutputStream out() {
    return out;
  }

  /** Completes when the input has ended and the SDK has been told. */
  CompletableFuture<Void> ended() {
    return ended;
  }

  /**
   * The next line the SDK may read, with its newline; null at the end of the input. Every line
   * before it that the SDK could not take is answered here.
   */
  private byte[] nextMessage() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    boolean tooLong = false;
    while (true) {
      int b = raw.read();
      if (b == -1 && line.size() == 0 && !tooLong) {
        return null;
      }
      if (b == -1 || b == '\n') {
        byte[] passed = tooLong ? null : check(line.toByteArray());
        if (tooLong) {
          answer(
              null,
              PARSE_ERROR,
              "Parse error: the line is longer than "
                  + MAX_LINE_BYTES
                  + " bytes and was dropped; a message to this server is one JSON object on one line, far shorter.");
        }
        if (passed != null) {
          return passed;
        }
        if (b == -1) {
          return null;
        }
        line.reset();
        tooLong = false;
      } else if (!tooLong) {
        line.write(b);
        // The rest of an over-long line is read and dropped, never held.
        if (line.size() > MAX_LINE_BYTES) {
          tooLong = true;
          line = new ByteArrayOutputStream();
        }
      }
    }
  }

  /** The line on one line as the SDK takes it, or null when it was answered here or is blank. */
  private byte[] check(byte[] line) throws IOException {
    if (new String(line, StandardCharsets.UTF_8).isBlank()) {
      return null;
    }
    JsonNode message;
    try {
      message = json.readTree(line);
    } catch (StreamConstraintsException e) {
      answer(
          null,
          PARSE_ERROR,
          "Parse error: the message is nested too deeply or too large for this server; "
              + "send arguments as plain strings and numbers as the tools' schemas describe.");
      return null;
    } catch (JacksonException e) {
      answer(
          null,
          PARSE_ERROR,
          "Parse error: the line is not one JSON value in UTF-8; send one JSON-RPC message per line.");
      return null;
    }
    JsonNode id = message.path("id");
    boolean request = message.isObject() && message.has("method") && message.has("id");
    Refusal refusal = refusal(message);
    if (refusal != null) {
      // A notification is never answered (JSON-RPC), a wrong one neither.
      if (request || !message.isObject() || !message.has("method")) {
        answer(id.isValueNode() ? id : null, refusal.code(), refusal.text());
      }
      return null;
    }
    String oneLine = json.writeValueAsString(message);
    try {
      McpSchema.deserializeJsonRpcMessage(sdkJson, oneLine);
    } catch (IOException | RuntimeException e) {
      if (request) {
        answer(
            id.isValueNode() ? id : null,
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 message this server understands.");
      }
      return null;
    }
    if (request) {
      owed.add(id.toString());
    }
    return (oneLine + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Why {@code message} is refused, in words for whoever sent it; null when the SDK may have it.
   */
  private static Refusal refusal(JsonNode message) {
    if (!message.isObject()
        || !(message.has("method") || message.has("result") || message.has("error"))) {
      return new Refusal(
          INVALID_REQUEST,
          "Invalid Request: a JSON-RPC 2.0 message is an object with a \"method\" "
              + "(a request or a notification) or with a \"result\" or an \"error\" (a response).");
    }
    if (message.has("method") && !message.get("method").isString()) {
      return new Refusal(
          INVALID_REQUEST, "Invalid Request: \"method\" must be a string, e.g. \"tools/call\".");
    }
    JsonNode params = message.path("params");
    if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
      return new Refusal(INVALID_PARAMS, "Invalid params: \"params\" must be an object.");
    }
    if (message.path("method").asString("").equals("tools/call")) {
      JsonNode arguments = params.path("arguments");
      if (!params.path("name").isString()) {
        return new Refusal(
            INVALID_PARAMS,
            "Invalid params: tools/call takes {\"name\": \"<tool>\", \"arguments\": {…}}; "
                + "\"name\" must be the tool's name as tools/list gives it.");
      }
      if (!arguments.isMissingNode() && !arguments.isNull() && !arguments.isObject()) {
        return new Refusal(
            INVALID_PARAMS,
            "Invalid params: \"arguments\" must be an object of the tool's arguments by "
                + "name, e.g. {\"path\": \"src/Main.java\"}, or left out for a tool that takes none.");
      }
    }
    return null;
  }

  /** A message refused here: its JSON-RPC error code and what to send instead. */
  private record Refusal(int code, String text) {}

  private void answer(JsonNode id, int code, String text) throws IOException {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("jsonrpc", "2.0");
    error.put("id", id);
    error.put("error", Map.of("code", code, "message", text));
    writeLine(json.writeValueAsBytes(error));
  }

  /** One whole line on the real output: the SDK's answers and these never interleave. */
  private void writeLine(byte[] line) throws IOException {
    synchronized (rawOut) {
      rawOut.write(line);
      rawOut.write('\n');
      rawOut.flush();
    }
  }

  /** At the end of the input: the answers owed go out first, within a bound. */
  private void drain() {
    long deadline = System.nanoTime() + DRAIN_BOUND.toNanos();
    try {
      while (!owed.isEmpty() && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The SDK's input: the lines {@link #nextMessage} lets through. */
  private final class Lines extends InputStream {
    private byte[] current = new byte[0];
    private int next;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (next == current.length) {
        byte[] message;
        try {
          message = nextMessage();
        } catch (IOException e) {
          // stdin or stdout broke: the CLI is gone, which ends this server as the end of its input
          // does.
          message = null;
        }
        if (message == null) {
          drain();
          ended.complete(null);
          return -1;
        }
        current = message;
        next = 0;
      }
      int n = Math.min(len, current.length - next);
      System.arraycopy(current, next, b, off, n);
      next += n;
      return n;
    }

    /**
     * Only what is in hand: the SDK's reader must not wait for the next line to finish this one.
     */
    @Override
    public int available() {
      return current.length - next;
    }
  }

  /** The SDK's output, passed on a whole line at a time, settling the answers owed. */
  private final class WholeLines extends OutputStream {
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) throws IOException {
      if (b != '\n') {
        line.write(b);
        return;
      }
      byte[] whole = line.toByteArray();
      line.reset();
      settle(whole);
      writeLine(whole);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    private void settle(byte[] answer) {
      try {
        JsonNode message = json.readTree(answer);
        if (message.has("id") && (message.has("result") || message.has("error"))) {
          owed.remove(message.get("id").toString());
        }
      } catch (JacksonException e) {
        // Not an answer to settle.
      }
    }
  }
}
