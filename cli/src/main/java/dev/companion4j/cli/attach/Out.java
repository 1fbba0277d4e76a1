package dev.companion4j.cli.attach;

import dev.companion4j.cli.bridge.JsonRpc;
import java.io.IOException;
import java.io.OutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The editor's side of stdout: every message one whole line, written under one lock, so answers
 * (from the thread reading stdin) and events (from the stream's thread) never interleave.
 */
final class Out {
  private static final Logger log = LoggerFactory.getLogger(Out.class);

  private final OutputStream stdout;
  private boolean broken;

  Out(OutputStream stdout) {
    this.stdout = stdout;
  }

  void notify(String method, JsonNode params) {
    write(JsonRpc.JSON.createObjectNode().put("method", method).set("params", params));
  }

  /** An {@code error} notification; {@code method} names the refused notification, or is null. */
  void error(String text, String method) {
    ObjectNode params = JsonRpc.JSON.createObjectNode().put("message", text);
    if (method != null) {
      params.put("method", method);
    }
    notify("error", params);
  }

  void result(JsonNode id, JsonNode result) {
    write(JsonRpc.JSON.createObjectNode().set("id", id).set("result", result));
  }

  void failure(JsonNode id, RequestFailure failure) {
    ObjectNode message = JsonRpc.JSON.createObjectNode();
    message.set("id", id);
    ObjectNode error =
        message.putObject("error").put("code", failure.code()).put("message", failure.getMessage());
    failure.outcome().ifPresent(o -> error.put("outcome", o));
    write(message);
  }

  private synchronized void write(ObjectNode message) {
    if (broken) {
      return;
    }
    byte[] json = JsonRpc.JSON.writeValueAsBytes(message);
    byte[] line = new byte[json.length + 1];
    System.arraycopy(json, 0, line, 0, json.length);
    line[json.length] = '\n';
    try {
      stdout.write(line);
      stdout.flush();
    } catch (IOException e) {
      // The editor closed its end; its stdin ends too, and that ends attach.
      broken = true;
      log.warn("The editor stopped reading: {}", e.getMessage());
    }
  }

  /** The text of a line in a message about it: lines may be megabytes long. */
  static String shown(String text) {
    String oneLine = text.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "…";
  }
}
