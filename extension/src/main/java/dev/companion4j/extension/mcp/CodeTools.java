package dev.companion4j.extension.mcp;

import static dev.companion4j.extension.mcp.IdeTools.answer;
import static dev.companion4j.extension.mcp.IdeTools.error;

import dev.companion4j.extension.ide.IdeLink;
import dev.companion4j.extension.ide.StatusText;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * The code tools: what the editor knows of the code (definitions, references, symbols, call and
 * type hierarchies), asked of the companion's {@code /ide/code/} routes, and a rename the user
 * reviews in the editor as one change. Paths go to the companion as the model gave them: it
 * resolves them against its workspace and refuses what lies outside.
 */
final class CodeTools {
  /** The companion waits for the editor at most 30 s; its answer then needs a moment more. */
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(35);

  /** One long poll for the user's decision; the companion holds it at most this long. */
  private static final int POLL_SECONDS = 50;

  /**
   * How long a rename waits for the user: the CLIs give an MCP tool ten minutes by default, and the
   * model should hear the change is still open rather than a timeout.
   */
  static final Duration REVIEW_WAIT = Duration.ofMinutes(9);

  private final IdeLink link;
  private final Supplier<Path> workspace;
  private final Clock clock;

  CodeTools(IdeLink link, Supplier<Path> workspace, Clock clock) {
    this.link = link;
    this.workspace = workspace;
    this.clock = clock;
  }

  /** One question; {@code what} names the answer's places for the text, e.g. "references". */
  CallToolResult find(String route, Map<String, Object> query, String what) {
    Optional<IdeLink.Answer> asked =
        link.ask(workspace.get(), "POST", "/ide/code/" + route, query, QUERY_TIMEOUT);
    if (asked.isEmpty()) {
      return error(StatusText.none(workspace.get()));
    }
    if (asked.get().status() != 200) {
      return error(asked.get().error());
    }
    JsonNode body = asked.get().body();
    return answer(text(body, what), body);
  }

  /** The answer as lines the model reads without a second look at the files. */
  static String text(JsonNode body, String what) {
    JsonNode results = body.path("results");
    int more = body.path("more").asInt(0);
    if (results.isEmpty()) {
      return "No " + what + " found.";
    }
    StringBuilder text =
        new StringBuilder()
            .append(results.size() + more)
            .append(' ')
            .append(results.size() + more == 1 ? singular(what) : what)
            .append(":\n");
    for (JsonNode r : results) {
      text.append("- ");
      if (r.has("name")) {
        text.append(r.get("name").asString());
        if (r.has("kind")) {
          text.append(" (").append(r.get("kind").asString()).append(')');
        }
        text.append(r.has("path") ? " at " : " (no source in the workspace)");
      }
      if (r.has("path")) {
        text.append(r.get("path").asString())
            .append(':')
            .append(r.get("line").asInt())
            .append(':')
            .append(r.get("column").asInt())
            .append(": ")
            .append(r.path("text").asString("").strip());
      }
      if (r.path("declaration").asBoolean(false)) {
        text.append("  [declaration]");
      }
      text.append('\n');
    }
    if (more > 0) {
      text.append("…and ").append(more).append(" more not listed.\n");
    }
    return text.toString().stripTrailing();
  }

  private static String singular(String what) {
    return what.endsWith("ies")
        ? what.substring(0, what.length() - 3) + "y"
        : what.endsWith("s") ? what.substring(0, what.length() - 1) : what;
  }

  /**
   * Has the editor compute the rename, shows it to the user as one change, and waits for their
   * decision (at most {@link #REVIEW_WAIT}).
   */
  CallToolResult rename(Map<String, Object> query) {
    Optional<IdeLink.Answer> asked =
        link.ask(workspace.get(), "POST", "/ide/code/rename", query, QUERY_TIMEOUT);
    if (asked.isEmpty()) {
      return error(StatusText.none(workspace.get()));
    }
    if (asked.get().status() != 202) {
      return error("Not renamed: " + asked.get().error());
    }
    String change = asked.get().body().path("change").asString();
    Instant giveUp = clock.instant().plus(REVIEW_WAIT);
    while (true) {
      Optional<IdeLink.Answer> state =
          link.ask(
              workspace.get(),
              "GET",
              "/ide/code/changes/" + change + "?wait=" + POLL_SECONDS,
              null,
              Duration.ofSeconds(POLL_SECONDS + 10));
      if (state.isEmpty()) {
        return error(
            "The editor's companion went away before the user decided on the rename; nothing is known"
                + " to have been written.");
      }
      if (state.get().status() != 200) {
        return error(state.get().error());
      }
      JsonNode body = state.get().body();
      String decided = body.path("state").asString();
      if (!decided.equals("pending")) {
        return decidedText(body, decided, query.get("newName"));
      }
      if (!clock.instant().isBefore(giveUp)) {
        return answer(
            "The rename waits for the user's review in the editor (change "
                + change
                + "); they have not decided yet. Nothing is written until they accept it.",
            body);
      }
    }
  }

  private static CallToolResult decidedText(JsonNode body, String state, Object newName) {
    String files =
        String.join("\n", body.path("files").valueStream().map(f -> "- " + f.asString()).toList());
    return switch (state) {
      case "accepted" ->
          answer(
              "The user accepted the rename to "
                  + newName
                  + "; the editor wrote every file of it:\n"
                  + files,
              body);
      case "rejected" -> answer("The user rejected the rename; no file was changed.", body);
      case "changedOnDisk" ->
          error(
              "Not renamed: these files changed on disk while the user reviewed the rename, so nothing"
                  + " was written:\n"
                  + files);
      case "stopped" ->
          error("Not renamed: the editor's companion stopped before the user decided.");
      case "writeFailed" ->
          error(
              "The user accepted the rename, but the editor could not write every file: "
                  + body.path("error").asString());
      default ->
          error("Not renamed: " + body.path("error").asString("the editor could not show it"));
    };
  }

  /** The body of a query: the arguments the route takes, those given. */
  static Map<String, Object> query(Object... pairs) {
    Map<String, Object> body = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] != null) {
        body.put((String) pairs[i], pairs[i + 1]);
      }
    }
    return body;
  }
}
