package dev.companion4j.engine.internal.server;

import dev.companion4j.engine.http.HttpBodies;
import dev.companion4j.engine.internal.diff.DiffBook;
import dev.companion4j.engine.internal.diff.DiffBook.DiffRequestException;
import dev.companion4j.engine.internal.loop.EngineLoop;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code openDiff} and {@code closeDiff} tools; both CLIs enable diffing only when both exist.
 */
public final class DiffTools {
  private static final Logger log = LoggerFactory.getLogger(DiffTools.class);

  private DiffTools() {}

  /** A JSON schema property of a tool's input. */
  private static Map<String, String> property(String type, String description) {
    return Map.of("type", type, "description", description);
  }

  public static List<SyncToolSpecification> specifications(DiffBook diffs) {
    McpSchema.Tool openDiff =
        McpSchema.Tool.builder()
            .name("openDiff")
            .description(
                "Opens a diff view in the editor so the user can review, edit and accept or reject a proposed change to a file.")
            .inputSchema(
                Map.of(
                    "type", "object",
                    "properties",
                        Map.of(
                            "filePath", property("string", "Absolute path of the file to change."),
                            "newContent",
                                property("string", "The proposed full content of the file.")),
                    "required", List.of("filePath", "newContent")))
            .build();
    McpSchema.Tool closeDiff =
        McpSchema.Tool.builder()
            .name("closeDiff")
            .description(
                "Closes the diff view for a file and returns the proposed side's final content.")
            .inputSchema(
                Map.of(
                    "type", "object",
                    "properties",
                        Map.of(
                            "filePath",
                                property(
                                    "string", "Absolute path of the file whose diff to close."),
                            "suppressNotification",
                                property(
                                    "boolean",
                                    "When true, no accepted or rejected notification follows.")),
                    "required", List.of("filePath")))
            .build();
    return List.of(
        SyncToolSpecification.builder()
            .tool(openDiff)
            .callHandler(
                (exchange, request) -> openDiff(diffs, exchange.sessionId(), request.arguments()))
            .build(),
        SyncToolSpecification.builder()
            .tool(closeDiff)
            .callHandler(
                (exchange, request) -> closeDiff(diffs, exchange.sessionId(), request.arguments()))
            .build());
  }

  private static CallToolResult openDiff(
      DiffBook diffs, String sessionId, Map<String, Object> args) {
    try {
      String filePath = requireString(args, "filePath");
      String newContent = requireString(args, "newContent");
      await(
          diffs.open(sessionId, filePath, newContent),
          "show the diff for " + filePath,
          "the proposal was withdrawn");
      return CallToolResult.builder().content(List.of()).build();
    } catch (DiffRequestException e) {
      return error(e.getMessage());
    }
  }

  private static CallToolResult closeDiff(
      DiffBook diffs, String sessionId, Map<String, Object> args) {
    try {
      String filePath = requireString(args, "filePath");
      Object suppress = args == null ? null : args.get("suppressNotification");
      if (suppress != null && !(suppress instanceof Boolean)) {
        throw new DiffRequestException("suppressNotification must be a boolean");
      }
      Optional<String> content =
          await(
              diffs.close(sessionId, filePath, Boolean.TRUE.equals(suppress)),
              "close the diff for " + filePath,
              "it is closed for the companion");
      // The CLIs parse this text as JSON, not as the raw content the specs describe.
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("content", content.orElse(null));
      return CallToolResult.builder()
          .addTextContent(HttpBodies.JSON.writeValueAsString(body))
          .build();
    } catch (DiffRequestException e) {
      return error(e.getMessage());
    }
  }

  /**
   * Waits for the engine thread to have the host show or close the diff; the CLI waits for this
   * answer, at most {@link EngineLoop#HOST_ANSWER_BOUND}. Past it the step is cancelled, which
   * withdraws a proposal not shown yet, and the CLI hears so.
   *
   * @param what what the editor did not do in time, for the CLI
   * @param after what that means for the diff
   */
  private static <T> T await(CompletableFuture<T> step, String what, String after)
      throws DiffRequestException {
    try {
      return step.get(EngineLoop.HOST_ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      step.cancel(false);
      throw new DiffRequestException(
          "The editor did not "
              + what
              + " within "
              + EngineLoop.HOST_ANSWER_BOUND.toSeconds()
              + " s; "
              + after);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof DiffRequestException refused) {
        throw refused;
      }
      // Only our own refusals reach the model; anything else is a failure it cannot fix.
      log.warn("A diff step failed", e.getCause());
      throw new DiffRequestException("The editor failed to answer; the companion's log says why");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DiffRequestException("The companion is shutting down");
    }
  }

  private static String requireString(Map<String, Object> args, String name)
      throws DiffRequestException {
    Object value = args == null ? null : args.get(name);
    if (value == null) {
      throw new DiffRequestException(name + " is required");
    }
    if (!(value instanceof String s)) {
      throw new DiffRequestException(name + " must be a string");
    }
    return s;
  }

  private static CallToolResult error(String message) {
    return CallToolResult.builder().isError(true).addTextContent(message).build();
  }
}
