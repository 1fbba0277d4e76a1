package dev.companion4j.cli.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Translates the paths in the messages the companion's contract carries, in place. Towards the
 * companion: the path arguments of its tools ({@code openDiff} and {@code closeDiff} take {@code
 * filePath}; they take no other path). Towards the CLI: {@code ide/contextUpdate}'s open files, the
 * diff outcomes' {@code filePath}, and error texts that quote a translated argument. File contents
 * (a diff's text, {@code closeDiff}'s result) are never touched.
 */
final class MessagePaths {
  /** The companion's tools and which of their arguments are paths. */
  private static final Map<String, Set<String>> PATH_ARGUMENTS =
      Map.of(
          "openDiff", Set.of("filePath"),
          "closeDiff", Set.of("filePath"));

  private static final Set<String> OUTCOMES =
      Set.of("ide/diffAccepted", "ide/diffRejected", "ide/diffClosed");

  private final PathMap paths;

  MessagePaths(PathMap paths) {
    this.paths = paths;
  }

  /** A path argument as the CLI sent it and as the companion got it. */
  record Translated(String cliPath, String companionPath) {}

  /**
   * Rewrites a request from the CLI for the companion.
   *
   * @return the arguments it translated, to undo in the answer's error texts
   */
  List<Translated> toCompanion(JsonNode request) {
    if (paths.isEmpty() || !"tools/call".equals(request.path("method").asString(null))) {
      return List.of();
    }
    JsonNode arguments = request.path("params").path("arguments");
    Set<String> names = PATH_ARGUMENTS.get(request.path("params").path("name").asString(""));
    if (names == null || !(arguments instanceof ObjectNode args)) {
      return List.of();
    }
    List<Translated> translated = new ArrayList<>();
    for (String name : names) {
      JsonNode value = args.get(name);
      if (value != null && value.isString()) {
        String companionPath = paths.toCompanion(value.asString());
        if (!companionPath.equals(value.asString())) {
          args.put(name, companionPath);
          translated.add(new Translated(value.asString(), companionPath));
        }
      }
    }
    return translated;
  }

  /** Rewrites a notification from the companion for the CLI. */
  void notificationToCli(JsonNode notification) {
    if (paths.isEmpty()) {
      return;
    }
    String method = notification.path("method").asString("");
    JsonNode params = notification.path("params");
    if (method.equals("ide/contextUpdate")) {
      for (JsonNode file : params.path("workspaceState").path("openFiles")) {
        translateToCli(file, "path");
      }
    } else if (OUTCOMES.contains(method)) {
      translateToCli(params, "filePath");
    }
  }

  /**
   * Rewrites the companion's answer to a request whose arguments were {@code translated}: an error
   * result's texts and an error's message quote the path the companion got.
   */
  static void answerToCli(JsonNode answer, List<Translated> translated) {
    if (translated.isEmpty()) {
      return;
    }
    JsonNode result = answer.path("result");
    if (result.path("isError").asBoolean(false)) {
      for (JsonNode block : result.path("content")) {
        if ("text".equals(block.path("type").asString(null))) {
          replaceIn(block, "text", translated);
        }
      }
    }
    replaceIn(answer.path("error"), "message", translated);
  }

  private void translateToCli(JsonNode holder, String field) {
    if (holder instanceof ObjectNode object && object.path(field).isString()) {
      object.put(field, paths.toCli(object.path(field).asString()));
    }
  }

  private static void replaceIn(JsonNode holder, String field, List<Translated> translated) {
    if (holder instanceof ObjectNode object && object.path(field).isString()) {
      String text = object.path(field).asString();
      for (Translated t : translated) {
        text = text.replace(t.companionPath(), t.cliPath());
      }
      object.put(field, text);
    }
  }
}
