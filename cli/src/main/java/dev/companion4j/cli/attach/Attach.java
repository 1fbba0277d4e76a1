package dev.companion4j.cli.attach;

import dev.companion4j.cli.bridge.JsonRpc;
import dev.companion4j.engine.DiffId;
import dev.companion4j.wire.LineSplitter;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The editor's side of attach: reads its JSON lines from stdin on the calling thread, handles each
 * in order (requests to the attached companion are bounded by {@link
 * EditorClient#REQUEST_TIMEOUT}), and ends when stdin does. See docs/attach.md.
 */
final class Attach {
  /** The longest line either way; longer ones are skipped with an error, never held. */
  static final int MAX_LINE_BYTES = 64 * 1024 * 1024;

  private static final Logger log = LoggerFactory.getLogger(Attach.class);

  /** Starting a companion takes a second or two; past this, something is wrong. */
  private static final Duration START_BOUND = Duration.ofSeconds(30);

  private final Link link;
  private final EditorClient client;
  private final Out out;

  Attach(Link link, EditorClient client, Out out) {
    this.link = link;
    this.client = client;
    this.out = out;
  }

  /** Serves the editor until {@code stdin} ends; the link is started and stopped here. */
  void serve(InputStream stdin) throws IOException {
    link.start();
    try {
      LineSplitter lines =
          new LineSplitter(
              MAX_LINE_BYTES,
              false,
              LineSplitter.Lines.of(
                  line -> {
                    handle(line);
                  },
                  () -> {
                    out.error(
                        "skipped a line longer than " + (MAX_LINE_BYTES >> 20) + " MiB", null);
                  }));
      byte[] buffer = new byte[64 * 1024];
      int n;
      while ((n = stdin.read(buffer)) >= 0) {
        lines.feed(buffer, 0, n);
      }
      lines.finish();
      log.info("The editor closed attach's input; ending");
    } finally {
      link.stop();
    }
  }

  /** One line from the editor. */
  void handle(String line) {
    if (line.isBlank()) {
      return;
    }
    JsonNode message;
    try {
      message = JsonRpc.JSON.readTree(line);
    } catch (JacksonException e) {
      out.error("a line that is not JSON was skipped: " + Out.shown(line), null);
      return;
    }
    if (!message.isObject()) {
      out.error("a message is one JSON object per line; skipped: " + Out.shown(line), null);
      return;
    }
    JsonNode id = message.get("id");
    JsonNode method = message.get("method");
    boolean request = id != null && (id.isString() || id.isNumber());
    if (id != null && !request) {
      out.error("a request's id is a number or a string; skipped: " + Out.shown(line), null);
      return;
    }
    if (method == null || !method.isString()) {
      if (request) {
        out.failure(id, new RequestFailure("unknownMethod", "a request needs a method, a string"));
      } else {
        out.error("a message needs a method, a string; skipped: " + Out.shown(line), null);
      }
      return;
    }
    JsonNode params = message.path("params");
    if (request) {
      try {
        out.result(id, answer(method.asString(), params));
      } catch (RequestFailure f) {
        out.failure(id, f);
      }
    } else if (method.asString().equals("event")) {
      try {
        event(params);
      } catch (RequestFailure f) {
        out.error(f.getMessage(), "event");
      }
    } else {
      out.error(
          "unknown notification "
              + Out.shown(method.asString())
              + "; the editor sends only event as a notification",
          Out.shown(method.asString()));
    }
  }

  private JsonNode answer(String method, JsonNode params) throws RequestFailure {
    return switch (method) {
      case "state" -> get("/state");
      case "terminal" -> get("/terminal");
      case "diff" -> diff(params);
      case "accept" -> answerDiff(params, true);
      case "reject" -> answerDiff(params, false);
      case "codeAnswer" -> codeAnswer(params);
      case "acceptChange" -> answerChange(params, true);
      case "rejectChange" -> answerChange(params, false);
      case "start" -> start();
      case "event" -> {
        event(params);
        yield JsonRpc.JSON.createObjectNode();
      }
      default ->
          throw new RequestFailure(
              "unknownMethod",
              "no method "
                  + Out.shown(method)
                  + "; the methods are event, state, diff, accept, reject, codeAnswer,"
                  + " acceptChange, rejectChange, terminal and start");
    };
  }

  private JsonNode get(String route) throws RequestFailure {
    EditorClient.Reply reply = call(target -> client.get(target, route));
    if (reply.status() != 200) {
      throw new RequestFailure("failed", "the companion refused: " + reply.error());
    }
    return reply.body();
  }

  private JsonNode diff(JsonNode params) throws RequestFailure {
    String id = diffId(params);
    EditorClient.Reply reply = call(target -> client.get(target, "/diffs/" + id));
    return switch (reply.status()) {
      case 200 -> reply.body();
      case 404 ->
          throw new RequestFailure(
              "unknownDiff",
              "diff " + id + " is not pending: it was never proposed here, or it ended");
      default -> throw new RequestFailure("failed", "the companion refused: " + reply.error());
    };
  }

  private JsonNode answerDiff(JsonNode params, boolean accept) throws RequestFailure {
    String id = diffId(params);
    ObjectNode body = JsonRpc.JSON.createObjectNode();
    JsonNode content = params.path("content");
    if (accept && !content.isMissingNode() && !content.isNull()) {
      if (!content.isString()) {
        throw new RequestFailure("invalidParams", "content must be a string: the text to write");
      }
      body.put("content", content.asString());
    }
    String route = "/diffs/" + id + (accept ? "/accept" : "/reject");
    EditorClient.Reply reply = call(target -> client.post(target, route, body));
    return switch (reply.status()) {
      case 204, 200 -> JsonRpc.JSON.createObjectNode();
      case 400 -> throw new RequestFailure("invalidParams", reply.error());
      case 404 -> throw new RequestFailure("unknownDiff", reply.error());
      case 409 ->
          throw new RequestFailure(
              "ended", reply.error(), reply.body().path("outcome").asString("ended"));
      case 410 -> throw new RequestFailure("clientGone", reply.error());
      default -> throw new RequestFailure("failed", "the companion refused: " + reply.error());
    };
  }

  /**
   * {@code {id, results|files|error}}: the editor's answer to a {@code codeQuery}, checked by the
   * companion.
   */
  private JsonNode codeAnswer(JsonNode params) throws RequestFailure {
    String id = id(params, "id", "a query's answer: {\"id\": id, and results, files or error}");
    ObjectNode body = ((ObjectNode) params).deepCopy();
    body.remove("id");
    EditorClient.Reply reply = call(target -> client.post(target, "/code/" + id, body));
    return switch (reply.status()) {
      case 204, 200 -> JsonRpc.JSON.createObjectNode();
      case 400, 413 -> throw new RequestFailure("invalidParams", reply.error());
      case 404, 409 -> throw new RequestFailure("unknownQuery", reply.error());
      default -> throw new RequestFailure("failed", "the companion refused: " + reply.error());
    };
  }

  /** {@code {change, files?}}: one decision for every file of a change. */
  private JsonNode answerChange(JsonNode params, boolean accept) throws RequestFailure {
    String id = id(params, "change", "a change: {\"change\": id}");
    ObjectNode body = JsonRpc.JSON.createObjectNode();
    JsonNode files = params.path("files");
    if (accept && !files.isMissingNode() && !files.isNull()) {
      body.set("files", files);
    }
    String route = "/changes/" + id + (accept ? "/accept" : "/reject");
    EditorClient.Reply reply = call(target -> client.post(target, route, body));
    return switch (reply.status()) {
      case 204, 200 -> JsonRpc.JSON.createObjectNode();
      case 400, 413 -> throw new RequestFailure("invalidParams", reply.error());
      case 404 -> throw new RequestFailure("unknownChange", reply.error());
      case 409 -> {
        String outcome = reply.body().path("outcome").asString("ended");
        if (!outcome.equals("changedOnDisk")) {
          throw new RequestFailure("ended", reply.error(), outcome);
        }
        List<String> changed = new ArrayList<>();
        reply.body().path("changedOnDisk").forEach(f -> changed.add(f.asString()));
        throw new RequestFailure(
            "changedOnDisk", reply.error() + ": " + String.join(", ", changed), outcome);
      }
      default -> throw new RequestFailure("failed", "the companion refused: " + reply.error());
    };
  }

  private void event(JsonNode params) throws RequestFailure {
    if (!params.isObject()) {
      throw new RequestFailure(
          "invalidParams",
          "an event's params are one editor event, e.g. "
              + "{\"type\":\"focus\",\"path\":\"/abs/file\"}");
    }
    EditorClient.Reply reply = call(target -> client.post(target, "/events", params));
    switch (reply.status()) {
      case 204, 200 -> {}
      case 400, 413 ->
          throw new RequestFailure(
              "invalidParams", "the companion refused the event: " + reply.error());
      default ->
          throw new RequestFailure("failed", "the companion refused the event: " + reply.error());
    }
  }

  private JsonNode start() throws RequestFailure {
    Optional<Target> attached = link.current();
    if (attached.isPresent()) {
      return startAnswer(attached.get());
    }
    try {
      return startAnswer(link.requestStart().get(START_BOUND.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException e) {
      throw new RequestFailure("failed", e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new RequestFailure(
          "failed", "no companion was running within " + START_BOUND.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestFailure("failed", "interrupted");
    }
  }

  private static JsonNode startAnswer(Target target) {
    return JsonRpc.JSON
        .createObjectNode()
        .put("port", target.port())
        .put("started", target.started());
  }

  private static String diffId(JsonNode params) throws RequestFailure {
    return id(params, "diff", "a diff: {\"diff\": id}");
  }

  /** The id in {@code params.field}: sixteen lowercase hex digits, as every id here. */
  private static String id(JsonNode params, String field, String form) throws RequestFailure {
    JsonNode id = params.path(field);
    if (!params.isObject() || !id.isString() || !DiffId.isValid(id.asString())) {
      throw new RequestFailure(
          "invalidParams", "params must name " + form + ", an id is sixteen lowercase hex digits");
    }
    return id.asString();
  }

  /**
   * A request to the attached companion; {@code detached} when there is none, {@code failed} when
   * it cannot be reached.
   */
  private EditorClient.Reply call(Exchange exchange) throws RequestFailure {
    Target target =
        link.current()
            .orElseThrow(
                () ->
                    new RequestFailure(
                        "detached",
                        "no companion is attached; attached follows when one proves itself"));
    if (target.gone()) {
      throw new RequestFailure(
          "detached",
          "the companion on port " + target.port() + " is gone; attached follows the next one");
    }
    try {
      return exchange.with(target);
    } catch (IOException e) {
      throw new RequestFailure(
          "failed",
          "the companion on port "
              + target.port()
              + " could not be reached: "
              + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
    }
  }

  private interface Exchange {
    EditorClient.Reply with(Target target) throws IOException;
  }
}
