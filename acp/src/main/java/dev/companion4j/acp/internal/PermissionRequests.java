package dev.companion4j.acp.internal;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import dev.companion4j.daemon.DaemonEvent;
import dev.companion4j.daemon.EventMeta;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code session/request_permission} on the wire, read from the raw JSON (an enum value the SDK
 * does not know would otherwise answer the agent with an internal error), and its answer.
 */
public final class PermissionRequests {
  private PermissionRequests() {}

  /** The request as the conversation's event, named {@code requestId} on this side. */
  public static DaemonEvent.PermissionRequested read(
      JsonNode params, String requestId, EventMeta meta) {
    JsonNode call = params.path("toolCall");
    List<DaemonEvent.PermissionOption> options = new ArrayList<>();
    for (JsonNode o : params.path("options")) {
      options.add(
          new DaemonEvent.PermissionOption(
              o.path("optionId").asString(""),
              o.path("name").asString(""),
              o.path("kind").asString("")));
    }
    List<String> locations = new ArrayList<>();
    for (JsonNode l : call.path("locations")) {
      locations.add(l.path("path").asString(""));
    }
    List<DaemonEvent.FileDiff> diffs = new ArrayList<>();
    for (JsonNode block : call.path("content")) {
      if ("diff".equals(block.path("type").asString(""))) {
        diffs.add(
            new DaemonEvent.FileDiff(
                block.path("path").asString(""),
                block.path("oldText").asString(""),
                block.path("newText").asString("")));
      }
    }
    return new DaemonEvent.PermissionRequested(
        meta,
        requestId,
        call.path("toolCallId").asString(""),
        call.path("title").asString(""),
        call.path("kind").asString(""),
        locations,
        options,
        diffs,
        questions(call));
  }

  /**
   * The answer to send: ACP's outcome, and the user's answers to the request's questions beside it,
   * keyed by the question's position, where Qwen Code reads them (the SDK's response has no place
   * for them).
   *
   * @param answers null when the request asked no questions or they were not answered
   */
  public static Object response(AcpSchema.RequestPermissionOutcome outcome, List<String> answers) {
    AcpSchema.RequestPermissionResponse response = new AcpSchema.RequestPermissionResponse(outcome);
    if (answers == null) {
      return response;
    }
    ObjectNode withAnswers = Jackson3Mapper.JSON.valueToTree(response);
    ObjectNode keyed = withAnswers.putObject("answers");
    for (int i = 0; i < answers.size(); i++) {
      keyed.put(String.valueOf(i), answers.get(i));
    }
    return withAnswers;
  }

  /**
   * The questions a permission request asks the user: Qwen Code marks its {@code ask_user_question}
   * so in the tool call's {@code _meta}; an earlier form only names the tool and carries them in
   * its arguments. None for any other request.
   */
  private static List<DaemonEvent.Question> questions(JsonNode call) {
    JsonNode meta = call.path("_meta");
    JsonNode asked;
    if ("user_question".equals(meta.path("qwenInteractionKind").asString(""))) {
      asked = meta.path("qwenQuestions");
    } else if ("ask_user_question".equals(meta.path("toolName").asString(""))) {
      asked = call.path("rawInput").path("questions");
    } else {
      return List.of();
    }
    List<DaemonEvent.Question> questions = new ArrayList<>();
    for (JsonNode q : asked) {
      List<DaemonEvent.QuestionOption> options = new ArrayList<>();
      for (JsonNode o : q.path("options")) {
        options.add(
            new DaemonEvent.QuestionOption(
                o.path("label").asString(""), o.path("description").asString("")));
      }
      questions.add(
          new DaemonEvent.Question(
              q.path("header").asString(""),
              q.path("question").asString(""),
              options,
              q.path("multiSelect").asBoolean(false)));
    }
    return questions;
  }
}
