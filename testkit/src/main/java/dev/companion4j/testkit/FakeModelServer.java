package dev.companion4j.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A model server on loopback that plays scripts, so the real CLIs and daemons can be driven
 * deterministically. It speaks two protocols on one port:
 *
 * <ul>
 *   <li>OpenAI chat completions under {@link #baseUrl()}: {@code GET /v1/models} and streamed
 *       {@code POST /v1/chat/completions} (tool calls as {@code delta.tool_calls});
 *   <li>Gemini under {@link #geminiBaseUrl()}: {@code POST
 *       /v1beta/models/<model>:streamGenerateContent?alt=sse}, {@code :generateContent} and {@code
 *       :countTokens} (tool calls as {@code functionCall} parts).
 * </ul>
 *
 * <p>Each model request is answered by the first of:
 *
 * <ol>
 *   <li>a non-streamed {@code generateContent} that asks for JSON by a response schema (Gemini
 *       CLI's router and next-speaker checks): a fixed JSON text, {@code
 *       {"complexity_reasoning":"simple","complexity_score":1}}, {@code
 *       {"reasoning":"simple","model_choice":"flash"}}, {@code
 *       {"reasoning":"done","next_speaker":"user"}}, or {@code {}} for other schemas;
 *   <li>the rules added with {@link #script}, in the order added;
 *   <li>the directives in the prompt (the last user message that is not a tool result):
 *       <ul>
 *         <li>{@code [[write /abs/path]]}: a {@code write_file} tool call writing {@link
 *             #FILE_CONTENT};
 *         <li>{@code [[call TOOL {json args}]]}: a call to TOOL with those arguments (the object
 *             may be left out for none).
 *       </ul>
 *       Several of these form a sequence: each answer makes the next call, counting the tool
 *       results that came back since the prompt; once all are made, a tool result is answered
 *       {@code Tool said: <tool result>};
 *   <li>the directives in the last user message:
 *       <ul>
 *         <li>{@code [[count N]]}: N chunks {@code c0000 c0001 ...} as fast as possible;
 *         <li>{@code [[count N gate K]]}: the same, pausing after K chunks until {@link
 *             #openGate()};
 *         <li>{@code [[hold]]}: three chunks, then the stream stays open until the caller goes away
 *             or {@link #openGate()};
 *         <li>{@code [[think]]}: a reasoning chunk, then the answer {@code thought done};
 *       </ul>
 *   <li>a tool result without a pending call: {@code Tool said: <tool result>};
 *   <li>anything else: {@code Hello from <model>}.
 * </ol>
 */
public final class FakeModelServer implements AutoCloseable {
  /** What {@code [[write]]} writes. */
  public static final String FILE_CONTENT = "written by the fake model\n";

  /**
   * Deeper than Jackson's default (500): a test may have the model send a deeply nested argument,
   * as a hostile one would.
   */
  private static final JsonMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(2_000).build())
                  .streamWriteConstraints(
                      StreamWriteConstraints.builder().maxNestingDepth(2_000).build())
                  .build())
          .build();

  private static final Pattern COUNT = Pattern.compile("\\[\\[count (\\d+)(?: gate (\\d+))?]]");
  private static final Pattern STEP =
      Pattern.compile(
          "\\[\\[(?:write (\\S+)|call ([^\\s\\]]+)(?:\\s+(\\{.*?}))?\\s*)]]", Pattern.DOTALL);
  private static final String GEMINI_PREFIX = "/v1beta/models/";

  /** The JSON answers to schema-constrained utility calls, keyed by a property the schema has. */
  private static final Map<String, String> SCHEMA_ANSWERS =
      Map.of(
          "complexity_score", "{\"complexity_reasoning\":\"simple\",\"complexity_score\":1}",
          "model_choice", "{\"reasoning\":\"simple\",\"model_choice\":\"flash\"}",
          "next_speaker", "{\"reasoning\":\"done\",\"next_speaker\":\"user\"}");

  /**
   * One model request, as received.
   *
   * @param path the request path without the query, e.g. {@code /v1/chat/completions}
   * @param model the model asked for (OpenAI: the body's {@code model}; Gemini: from the path)
   * @param lastRole the role of the last message; {@code tool} when it carries tool results (OpenAI
   *     role {@code tool}, Gemini {@code functionResponse} parts)
   * @param lastText the last message's text, or its tool results' text
   * @param body the whole JSON body; read it, do not change it
   */
  public record Request(
      String path, String model, String lastRole, String lastText, JsonNode body) {
    /** The names of the tools the request declares. */
    public List<String> toolNames() {
      List<String> names = new ArrayList<>();
      for (JsonNode tool : body.path("tools")) {
        if (tool.has("function")) {
          names.add(tool.path("function").path("name").asString(""));
        }
        for (JsonNode declaration : tool.path("functionDeclarations")) {
          names.add(declaration.path("name").asString(""));
        }
      }
      return names;
    }

    /** The system prompt (OpenAI {@code system} messages, Gemini {@code systemInstruction}). */
    public String systemText() {
      StringBuilder out = new StringBuilder();
      for (JsonNode message : body.path("messages")) {
        if ("system".equals(message.path("role").asString(""))) {
          out.append(text(message.path("content")));
        }
      }
      out.append(text(body.path("systemInstruction")));
      return out.toString();
    }
  }

  /** A scripted answer: text, or one tool call. */
  public sealed interface Reply {
    /** Answers {@code text}. */
    static Text text(String text) {
      return new Text(text);
    }

    /** Calls {@code tool} with {@code arguments}, a JSON object ({@code {}} for none). */
    static Call call(String tool, String arguments) {
      JsonNode parsed;
      try {
        parsed = JSON.readTree(arguments);
      } catch (JacksonException e) {
        throw new IllegalArgumentException(
            "Arguments of " + tool + " are not JSON: " + arguments, e);
      }
      if (!parsed.isObject()) {
        throw new IllegalArgumentException(
            "Arguments of " + tool + " are not a JSON object: " + arguments);
      }
      return new Call(tool, JSON.writeValueAsString(parsed));
    }

    /** A text answer. */
    record Text(String text) implements Reply {}

    /** A tool call; {@code arguments} is a JSON object. */
    record Call(String tool, String arguments) implements Reply {}
  }

  /** One message of a conversation; role {@code tool} for tool results. */
  private record Message(String role, String text) {}

  /** A tool call the prompt asks for, and the text said before it ({@code null} for none). */
  private record Step(String preface, Reply.Call call) {}

  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "fake-model");
            t.setDaemon(true);
            return t;
          });
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final List<Function<Request, Optional<Reply>>> rules = new CopyOnWriteArrayList<>();
  private final AtomicInteger callIds = new AtomicInteger();
  private final Object gateLock = new Object();
  private boolean gateOpen;

  public FakeModelServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(executor);
    server.createContext("/v1/models", guarded(this::models));
    server.createContext("/v1/chat/completions", guarded(this::completions));
    server.createContext(GEMINI_PREFIX, guarded(this::gemini));
    server.start();
  }

  /** The base URL to configure as the OpenAI endpoint ({@code OPENAI_BASE_URL}). */
  public String baseUrl() {
    return geminiBaseUrl() + "/v1";
  }

  /** The base URL to configure as the Gemini endpoint ({@code GOOGLE_GEMINI_BASE_URL}). */
  public String geminiBaseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Every model request so far, in arrival order (model listings are not recorded). */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /**
   * Adds a rule consulted before the prompt's directives: the first rule that answers decides. This
   * is how requests that do not carry the prompt's directives (a subagent's, say) are scripted.
   * Rules see every model request, tool results too, so a rule that calls a tool usually checks
   * {@code lastRole} to answer only once:
   *
   * <pre>{@code
   * model.script(r -> r.systemText().contains("You are the reviewer") && !r.lastRole().equals("tool")
   *     ? Optional.of(Reply.call("complete_task", "{\"result\":\"LGTM\"}"))
   *     : Optional.empty());
   * }</pre>
   */
  public void script(Function<Request, Optional<Reply>> rule) {
    rules.add(rule);
  }

  /** Removes every rule added with {@link #script}. */
  public void clearScripts() {
    rules.clear();
  }

  /** Lets paused and holding streams continue. */
  public void openGate() {
    synchronized (gateLock) {
      gateOpen = true;
      gateLock.notifyAll();
    }
  }

  /** Makes the next {@code gate}/{@code hold} scripts pause again. */
  public void closeGate() {
    synchronized (gateLock) {
      gateOpen = false;
    }
  }

  @Override
  public void close() {
    openGate();
    server.stop(0);
    executor.shutdownNow();
  }

  /**
   * Answers a failing rule or a malformed directive with a 500 naming the cause, so the test sees
   * why rather than a dropped connection; always ends the exchange.
   */
  private static HttpHandler guarded(HttpHandler handler) {
    return exchange -> {
      try {
        handler.handle(exchange);
      } catch (RuntimeException e) {
        if (exchange.getResponseCode() != -1) {
          throw e;
        }
        send(exchange, 500, error(500, "INTERNAL", e.toString()));
      } finally {
        exchange.close();
      }
    };
  }

  private void models(HttpExchange exchange) throws IOException {
    ObjectNode list = JSON.createObjectNode().put("object", "list");
    ArrayNode data = list.putArray("data");
    data.addObject().put("id", "fake-model").put("object", "model");
    data.addObject().put("id", "fake-model-2").put("object", "model");
    send(exchange, 200, list);
  }

  private void completions(HttpExchange exchange) throws IOException {
    JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
    Request request = received(exchange, body.path("model").asString(""), body);
    try {
      play(request, new OpenAiStream(exchange, request.model()));
    } catch (IOException e) {
      // The caller went away mid-answer (cancel, kill): nothing to answer any more.
    }
  }

  private void gemini(HttpExchange exchange) throws IOException {
    String target = exchange.getRequestURI().getPath().substring(GEMINI_PREFIX.length());
    int colon = target.lastIndexOf(':');
    String method = colon < 0 ? "" : target.substring(colon + 1);
    if (!"POST".equals(exchange.getRequestMethod())
        || !List.of("streamGenerateContent", "generateContent", "countTokens").contains(method)) {
      send(exchange, 404, error(404, "NOT_FOUND", "No such method: " + target));
      return;
    }
    JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
    Request request = received(exchange, target.substring(0, colon), body);
    if (method.equals("countTokens")) {
      send(
          exchange,
          200,
          JSON.createObjectNode()
              .put("totalTokens", Math.max(1, JSON.writeValueAsString(body).length() / 4)));
      return;
    }
    if (method.equals("generateContent")) {
      JsonNode schema = body.path("generationConfig").path("responseJsonSchema");
      if (schema.isMissingNode()) {
        schema = body.path("generationConfig").path("responseSchema");
      }
      if (!schema.isMissingNode()) {
        GeminiJson out = new GeminiJson(exchange);
        out.text(schemaAnswer(schema.path("properties")));
        out.finish(false);
        return;
      }
    }
    try {
      play(
          request,
          method.equals("generateContent") ? new GeminiJson(exchange) : new GeminiStream(exchange));
    } catch (IOException e) {
      // The caller went away mid-answer (cancel, kill): nothing to answer any more.
    }
  }

  private Request received(HttpExchange exchange, String model, JsonNode body) {
    List<Message> messages = messages(body);
    Message last = messages.isEmpty() ? new Message("", "") : messages.get(messages.size() - 1);
    Request request =
        new Request(exchange.getRequestURI().getPath(), model, last.role(), last.text(), body);
    requests.add(request);
    return request;
  }

  private static String schemaAnswer(JsonNode properties) {
    return SCHEMA_ANSWERS.entrySet().stream()
        .filter(e -> properties.has(e.getKey()))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse("{}");
  }

  private void play(Request request, Answer out) throws IOException {
    for (Function<Request, Optional<Reply>> rule : rules) {
      Optional<Reply> reply = rule.apply(request);
      if (reply.isPresent()) {
        if (reply.get() instanceof Reply.Call call) {
          out.call(nextCallId(), call.tool(), call.arguments());
        } else if (reply.get() instanceof Reply.Text text) {
          out.text(text.text());
        }
        out.finish(reply.get() instanceof Reply.Call);
        return;
      }
    }

    List<Message> messages = messages(request.body());
    int prompt = messages.size() - 1;
    while (prompt >= 0 && !messages.get(prompt).role().equals("user")) {
      prompt--;
    }
    List<Step> steps = prompt < 0 ? List.of() : steps(messages.get(prompt).text());
    int done =
        (int)
            messages.subList(prompt + 1, messages.size()).stream()
                .filter(m -> m.role().equals("tool"))
                .count();
    if (done < steps.size()) {
      Step step = steps.get(done);
      if (step.preface() != null) {
        out.text(step.preface());
      }
      out.call(nextCallId(), step.call().tool(), step.call().arguments());
      out.finish(true);
      return;
    }

    String lastText = request.lastText();
    if ("tool".equals(request.lastRole())) {
      out.text("Tool said: " + lastText);
      out.finish(false);
      return;
    }
    Matcher count = COUNT.matcher(lastText);
    if (count.find()) {
      int n = Integer.parseInt(count.group(1));
      int gateAt = count.group(2) == null ? -1 : Integer.parseInt(count.group(2));
      for (int i = 0; i < n; i++) {
        if (i == gateAt) {
          awaitGate(out);
        }
        out.text(String.format("c%04d ", i));
      }
    } else if (lastText.contains("[[hold]]")) {
      for (int i = 0; i < 3; i++) {
        out.text(String.format("h%d ", i));
      }
      awaitGate(out);
      out.text("released");
    } else if (lastText.contains("[[think]]")) {
      out.reasoning("pondering the question");
      out.text("thought done");
    } else {
      for (String piece : new String[] {"Hello", " from", " ", request.model()}) {
        out.text(piece);
      }
    }
    out.finish(false);
  }

  private String nextCallId() {
    return "call_" + callIds.incrementAndGet();
  }

  /** The {@code [[write]]} and {@code [[call]]} directives of a prompt, in order. */
  private static List<Step> steps(String prompt) {
    List<Step> steps = new ArrayList<>();
    Matcher step = STEP.matcher(prompt);
    while (step.find()) {
      if (step.group(1) != null) {
        String args =
            JSON.createObjectNode()
                .put("file_path", step.group(1))
                .put("content", FILE_CONTENT)
                .toString();
        steps.add(new Step("Writing the file.", Reply.call("write_file", args)));
      } else {
        String args = step.group(3) == null ? "{}" : step.group(3);
        steps.add(new Step(null, Reply.call(step.group(2), args)));
      }
    }
    return steps;
  }

  /**
   * Waits for the gate, keeping the stream alive so a caller that left is noticed by a failed
   * write.
   */
  private void awaitGate(Answer out) throws IOException {
    synchronized (gateLock) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!gateOpen && System.nanoTime() < deadline) {
        try {
          gateLock.wait(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
        out.keepAlive();
      }
    }
  }

  /** The conversation of an OpenAI ({@code messages}) or Gemini ({@code contents}) request. */
  private static List<Message> messages(JsonNode body) {
    List<Message> messages = new ArrayList<>();
    for (JsonNode message : body.path("messages")) {
      messages.add(new Message(message.path("role").asString(""), text(message.path("content"))));
    }
    for (JsonNode content : body.path("contents")) {
      StringBuilder results = new StringBuilder();
      boolean toolResult = false;
      for (JsonNode part : content.path("parts")) {
        JsonNode response = part.path("functionResponse").path("response");
        if (!response.isMissingNode()) {
          toolResult = true;
          results.append(
              response.path("output").isString()
                  ? response.path("output").stringValue()
                  : response.path("error").isString()
                      ? response.path("error").stringValue()
                      : response.toString());
        }
      }
      messages.add(
          toolResult
              ? new Message("tool", results.toString())
              : new Message(content.path("role").asString(""), text(content)));
    }
    return messages;
  }

  /** The text of an OpenAI content (a string or parts) or a Gemini content ({@code parts}). */
  private static String text(JsonNode content) {
    if (content.isString()) {
      return content.stringValue();
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode part : content.has("parts") ? content.path("parts") : content) {
      if (part.path("text").isString() && !part.path("thought").asBoolean(false)) {
        out.append(part.path("text").stringValue());
      }
    }
    return out.toString();
  }

  /** An error body in the shape both protocols' clients read. */
  private static ObjectNode error(int code, String status, String message) {
    ObjectNode body = JSON.createObjectNode();
    body.putObject("error").put("code", code).put("message", message).put("status", status);
    return body;
  }

  private static void send(HttpExchange exchange, int status, JsonNode json) throws IOException {
    byte[] body = JSON.writeValueAsBytes(json);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Where a script writes its answer, in one protocol's framing. */
  private interface Answer {
    void text(String text) throws IOException;

    void reasoning(String text) throws IOException;

    void call(String id, String name, String arguments) throws IOException;

    void finish(boolean calledTool) throws IOException;

    /** Writes something harmless, so a caller that left makes the write fail. */
    void keepAlive() throws IOException;
  }

  /**
   * Server-sent events, one frame per write, flushed at once. The headers go with the first frame,
   * so a rule that fails before it still gets its 500.
   */
  private abstract static class EventStream implements Answer {
    private final HttpExchange exchange;
    private boolean started;

    EventStream(HttpExchange exchange) {
      this.exchange = exchange;
    }

    final void write(String frame) throws IOException {
      if (!started) {
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        started = true;
      }
      OutputStream out = exchange.getResponseBody();
      out.write(frame.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }

  /** Writes OpenAI chat.completion.chunk frames. */
  private static final class OpenAiStream extends EventStream {
    private final String model;

    OpenAiStream(HttpExchange exchange, String model) {
      super(exchange);
      this.model = model;
    }

    @Override
    public void text(String text) throws IOException {
      chunk(JSON.createObjectNode().put("content", text), null);
    }

    @Override
    public void reasoning(String text) throws IOException {
      chunk(JSON.createObjectNode().put("reasoning_content", text), null);
    }

    @Override
    public void call(String id, String name, String arguments) throws IOException {
      ObjectNode start = JSON.createObjectNode();
      ObjectNode call =
          start
              .putArray("tool_calls")
              .addObject()
              .put("index", 0)
              .put("id", id)
              .put("type", "function");
      call.putObject("function").put("name", name).put("arguments", "");
      chunk(start, null);
      ObjectNode args = JSON.createObjectNode();
      args.putArray("tool_calls")
          .addObject()
          .put("index", 0)
          .putObject("function")
          .put("arguments", arguments);
      chunk(args, null);
    }

    @Override
    public void finish(boolean calledTool) throws IOException {
      chunk(JSON.createObjectNode(), calledTool ? "tool_calls" : "stop");
      ObjectNode usage = header();
      usage.putArray("choices");
      usage
          .putObject("usage")
          .put("prompt_tokens", 1)
          .put("completion_tokens", 1)
          .put("total_tokens", 2);
      write("data: " + usage + "\n\n");
      write("data: [DONE]\n\n");
    }

    @Override
    public void keepAlive() throws IOException {
      write(": waiting\n\n");
    }

    private ObjectNode header() {
      return JSON.createObjectNode()
          .put("id", "chatcmpl-fake")
          .put("object", "chat.completion.chunk")
          .put("created", 1)
          .put("model", model);
    }

    private void chunk(ObjectNode delta, String finishReason) throws IOException {
      ObjectNode chunk = header();
      ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
      choice.set("delta", delta);
      if (finishReason == null) {
        choice.putNull("finish_reason");
      } else {
        choice.put("finish_reason", finishReason);
      }
      write("data: " + chunk + "\n\n");
    }
  }

  /** Writes Gemini GenerateContentResponse frames, one part each. */
  private static final class GeminiStream extends EventStream {
    GeminiStream(HttpExchange exchange) {
      super(exchange);
    }

    @Override
    public void text(String text) throws IOException {
      frame(geminiText(text), null);
    }

    @Override
    public void reasoning(String text) throws IOException {
      frame(geminiText(text).put("thought", true), null);
    }

    @Override
    public void call(String id, String name, String arguments) throws IOException {
      frame(geminiCall(name, arguments), null);
    }

    @Override
    public void finish(boolean calledTool) throws IOException {
      frame(null, "STOP");
    }

    /** The SDK's stream parser stops at SSE comments, so this is an empty model content instead. */
    @Override
    public void keepAlive() throws IOException {
      frame(null, null);
    }

    private void frame(ObjectNode part, String finishReason) throws IOException {
      ArrayNode parts = JSON.createArrayNode();
      if (part != null) {
        parts.add(part);
      }
      write("data: " + JSON.writeValueAsString(geminiResponse(parts, finishReason)) + "\n\n");
    }
  }

  /** Collects the parts of a non-streamed Gemini answer and sends them as one response. */
  private static final class GeminiJson implements Answer {
    private final HttpExchange exchange;
    private final ArrayNode parts = JSON.createArrayNode();

    GeminiJson(HttpExchange exchange) {
      this.exchange = exchange;
    }

    @Override
    public void text(String text) {
      JsonNode last = parts.isEmpty() ? null : parts.get(parts.size() - 1);
      if (last != null && last.has("text") && !last.has("thought")) {
        ((ObjectNode) last).put("text", last.path("text").stringValue() + text);
      } else {
        parts.add(geminiText(text));
      }
    }

    @Override
    public void reasoning(String text) {
      parts.add(geminiText(text).put("thought", true));
    }

    @Override
    public void call(String id, String name, String arguments) {
      parts.add(geminiCall(name, arguments));
    }

    @Override
    public void finish(boolean calledTool) throws IOException {
      send(exchange, 200, geminiResponse(parts, "STOP"));
    }

    @Override
    public void keepAlive() {
      // Nothing is sent before the whole answer, so there is nothing to keep alive.
    }
  }

  private static ObjectNode geminiText(String text) {
    return JSON.createObjectNode().put("text", text);
  }

  private static ObjectNode geminiCall(String name, String arguments) {
    ObjectNode part = JSON.createObjectNode();
    part.putObject("functionCall").put("name", name).set("args", JSON.readTree(arguments));
    return part;
  }

  /** A GenerateContentResponse; usage metadata only on the final one. */
  private static ObjectNode geminiResponse(ArrayNode parts, String finishReason) {
    ObjectNode response = JSON.createObjectNode();
    ObjectNode candidate = response.putArray("candidates").addObject();
    candidate.putObject("content").put("role", "model").set("parts", parts);
    if (finishReason != null) {
      candidate.put("finishReason", finishReason);
    }
    candidate.put("index", 0);
    if (finishReason != null) {
      response
          .putObject("usageMetadata")
          .put("promptTokenCount", 1)
          .put("candidatesTokenCount", 1)
          .put("totalTokenCount", 2);
    }
    return response;
  }
}
