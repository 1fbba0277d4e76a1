package dev.companion4j.daemon.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An OpenAI-compatible chat-completions server on loopback that plays scripts, so the real daemon
 * can be driven deterministically.
 *
 * <p>The script is chosen by a directive in the last user message:
 *
 * <ul>
 *   <li>{@code [[write /abs/path]]}: a {@code write_file} tool call writing {@link #FILE_CONTENT};
 *   <li>{@code [[count N]]}: N chunks {@code c0000 c0001 ...} as fast as possible;
 *   <li>{@code [[count N gate K]]}: the same, pausing after K chunks until {@link #openGate()};
 *   <li>{@code [[hold]]}: three chunks, then the stream stays open until the caller goes away or
 *       {@link #openGate()};
 *   <li>{@code [[think]]}: a reasoning chunk, then the answer {@code thought done};
 *   <li>anything else: {@code Hello from <model>}.
 * </ul>
 *
 * After a tool ran, the next request ends with a {@code tool} message; the answer is {@code Tool
 * said: <tool result>}.
 */
public final class FakeModelServer implements AutoCloseable {
  /** What {@code [[write]]} writes. */
  public static final String FILE_CONTENT = "written by the fake model\n";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Pattern COUNT = Pattern.compile("\\[\\[count (\\d+)(?: gate (\\d+))?]]");
  private static final Pattern WRITE = Pattern.compile("\\[\\[write (\\S+)]]");

  /** One request the daemon sent. */
  public record Request(String model, String lastRole, String lastText) {}

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-model");
    t.setDaemon(true);
    return t;
  });
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Object gateLock = new Object();
  private boolean gateOpen;

  public FakeModelServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(executor);
    server.createContext("/v1/models", this::models);
    server.createContext("/v1/chat/completions", this::completions);
    server.start();
  }

  /** The base URL to configure as the OpenAI endpoint. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  /** Every chat-completions request so far. */
  public List<Request> requests() {
    return List.copyOf(requests);
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

  private void models(HttpExchange exchange) throws IOException {
    byte[] body =
        "{\"object\":\"list\",\"data\":[{\"id\":\"fake-model\",\"object\":\"model\"},{\"id\":\"fake-model-2\",\"object\":\"model\"}]}"
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private void completions(HttpExchange exchange) throws IOException {
    JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
    String model = request.path("model").asString("");
    JsonNode messages = request.path("messages");
    JsonNode last = messages.isArray() && messages.size() > 0 ? messages.get(messages.size() - 1) : JSON.createObjectNode();
    String lastRole = last.path("role").asString("");
    String lastText = text(last.path("content"));
    requests.add(new Request(model, lastRole, lastText));

    exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
    exchange.sendResponseHeaders(200, 0);
    Stream out = new Stream(exchange.getResponseBody(), model);
    try (out) {
      if ("tool".equals(lastRole)) {
        out.text("Tool said: " + lastText);
        out.finish("stop");
        return;
      }
      Matcher write = WRITE.matcher(lastText);
      Matcher count = COUNT.matcher(lastText);
      if (write.find()) {
        out.text("Writing the file.");
        out.toolCall("call_write_1", "write_file",
            JSON.createObjectNode().put("file_path", write.group(1)).put("content", FILE_CONTENT).toString());
        out.finish("tool_calls");
      } else if (count.find()) {
        int n = Integer.parseInt(count.group(1));
        int gateAt = count.group(2) == null ? -1 : Integer.parseInt(count.group(2));
        for (int i = 0; i < n; i++) {
          if (i == gateAt) {
            awaitGate(out);
          }
          out.text(String.format("c%04d ", i));
        }
        out.finish("stop");
      } else if (lastText.contains("[[hold]]")) {
        for (int i = 0; i < 3; i++) {
          out.text(String.format("h%d ", i));
        }
        awaitGate(out);
        out.text("released");
        out.finish("stop");
      } else if (lastText.contains("[[think]]")) {
        out.reasoning("pondering the question");
        out.text("thought done");
        out.finish("stop");
      } else {
        for (String piece : new String[] {"Hello", " from", " ", model}) {
          out.text(piece);
        }
        out.finish("stop");
      }
    } catch (IOException e) {
      // The daemon went away mid-answer (cancel, kill): nothing to answer any more.
    }
  }

  /** Waits for the gate, sending SSE comments so a caller that left is noticed by a failed write. */
  private void awaitGate(Stream out) throws IOException {
    synchronized (gateLock) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!gateOpen && System.nanoTime() < deadline) {
        try {
          gateLock.wait(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
        out.comment();
      }
    }
  }

  private static String text(JsonNode content) {
    if (content.isString()) {
      return content.stringValue();
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode part : content) {
      if (part.path("text").isString()) {
        out.append(part.path("text").stringValue());
      }
    }
    return out.toString();
  }

  /** Writes chat.completion.chunk frames. */
  private static final class Stream implements AutoCloseable {
    private final OutputStream out;
    private final String model;

    Stream(OutputStream out, String model) {
      this.out = out;
      this.model = model;
    }

    void text(String text) throws IOException {
      ObjectNode delta = JSON.createObjectNode().put("content", text);
      chunk(delta, null);
    }

    void reasoning(String text) throws IOException {
      chunk(JSON.createObjectNode().put("reasoning_content", text), null);
    }

    void toolCall(String id, String name, String arguments) throws IOException {
      ObjectNode start = JSON.createObjectNode();
      ArrayNode calls = start.putArray("tool_calls");
      ObjectNode call = calls.addObject().put("index", 0).put("id", id).put("type", "function");
      call.putObject("function").put("name", name).put("arguments", "");
      chunk(start, null);
      ObjectNode args = JSON.createObjectNode();
      args.putArray("tool_calls").addObject().put("index", 0).putObject("function").put("arguments", arguments);
      chunk(args, null);
    }

    void finish(String reason) throws IOException {
      chunk(JSON.createObjectNode(), reason);
      ObjectNode usage = JSON.createObjectNode().put("id", "chatcmpl-fake").put("object", "chat.completion.chunk")
          .put("created", 1).put("model", model);
      usage.putArray("choices");
      usage.putObject("usage").put("prompt_tokens", 1).put("completion_tokens", 1).put("total_tokens", 2);
      write("data: " + usage + "\n\n");
      write("data: [DONE]\n\n");
    }

    void comment() throws IOException {
      write(": waiting\n\n");
    }

    private void chunk(ObjectNode delta, String finishReason) throws IOException {
      ObjectNode chunk = JSON.createObjectNode().put("id", "chatcmpl-fake").put("object", "chat.completion.chunk")
          .put("created", 1).put("model", model);
      ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
      choice.set("delta", delta);
      if (finishReason == null) {
        choice.putNull("finish_reason");
      } else {
        choice.put("finish_reason", finishReason);
      }
      write("data: " + chunk + "\n\n");
    }

    private void write(String frame) throws IOException {
      out.write(frame.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    @Override
    public void close() {
      try {
        out.close();
      } catch (IOException e) {
        // The caller already left.
      }
    }
  }
}
