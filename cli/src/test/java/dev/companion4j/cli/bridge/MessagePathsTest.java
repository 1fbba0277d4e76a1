package dev.companion4j.cli.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Which fields of which messages carry paths, and that nothing else changes. */
class MessagePathsTest {
  private final MessagePaths paths =
      new MessagePaths(new PathMap(List.of(PathMap.Mapping.parse("/workspaces/app=/home/me/app"))));

  private static JsonNode json(String text) {
    return JsonRpc.JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void openDiffAndCloseDiffGetTheCompanionsPathAndNothingElseChanges() {
    JsonNode open =
        json(
            "{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':'openDiff',"
                + "'arguments':{'filePath':'/workspaces/app/a.txt','newContent':'/workspaces/app/a.txt'}}}");
    JsonNode close =
        json(
            "{'jsonrpc':'2.0','id':4,'method':'tools/call','params':{'name':'closeDiff',"
                + "'arguments':{'filePath':'/workspaces/app/a.txt','suppressNotification':true}}}");

    List<MessagePaths.Translated> translated = paths.toCompanion(open);
    paths.toCompanion(close);

    assertThat(open.toString())
        .isEqualTo(
            json("{'jsonrpc':'2.0','id':3,'method':'tools/call','params':{'name':'openDiff',"
                    + "'arguments':{'filePath':'/home/me/app/a.txt','newContent':'/workspaces/app/a.txt'}}}")
                .toString());
    assertThat(close.path("params").path("arguments").path("filePath").asString())
        .isEqualTo("/home/me/app/a.txt");
    assertThat(translated)
        .containsExactly(
            new MessagePaths.Translated("/workspaces/app/a.txt", "/home/me/app/a.txt"));
  }

  @Test
  void otherToolsAndMethodsAndPathsOutsideTheMappingPassAsTheyAre() {
    String other =
        "{'jsonrpc':'2.0','id':5,'method':'tools/call','params':{'name':'other','arguments':{'filePath':'/workspaces/app/a'}}}";
    String list =
        "{'jsonrpc':'2.0','id':6,'method':'tools/list','params':{'filePath':'/workspaces/app/a'}}";
    String outside =
        "{'jsonrpc':'2.0','id':7,'method':'tools/call','params':{'name':'openDiff','arguments':{'filePath':'/tmp/x'}}}";
    for (String text : List.of(other, list, outside)) {
      JsonNode message = json(text);

      assertThat(paths.toCompanion(message)).isEmpty();
      assertThat(message).isEqualTo(json(text));
    }
  }

  @Test
  void contextAndEveryDiffOutcomeGetTheClisPaths() {
    JsonNode context =
        json(
            "{'jsonrpc':'2.0','method':'ide/contextUpdate','params':{'workspaceState':{'openFiles':["
                + "{'path':'/home/me/app/src/Main.java','timestamp':1,'isActive':true,'selectedText':'/home/me/app'},"
                + "{'path':'/elsewhere/b.txt','timestamp':0}],'isTrusted':true}}}");
    paths.notificationToCli(context);

    assertThat(context)
        .isEqualTo(
            json(
                "{'jsonrpc':'2.0','method':'ide/contextUpdate','params':{'workspaceState':{'openFiles':["
                    + "{'path':'/workspaces/app/src/Main.java','timestamp':1,'isActive':true,'selectedText':'/home/me/app'},"
                    + "{'path':'/elsewhere/b.txt','timestamp':0}],'isTrusted':true}}}"));
    for (String method : List.of("ide/diffAccepted", "ide/diffRejected", "ide/diffClosed")) {
      JsonNode outcome =
          json(
              "{'jsonrpc':'2.0','method':'"
                  + method
                  + "','params':{'filePath':'/home/me/app/a.txt','content':'/home/me/app/a.txt'}}");
      paths.notificationToCli(outcome);

      assertThat(outcome.path("params").path("filePath").asString())
          .as(method)
          .isEqualTo("/workspaces/app/a.txt");
      assertThat(outcome.path("params").path("content").asString())
          .as("content is the file's text")
          .isEqualTo("/home/me/app/a.txt");
    }
  }

  @Test
  void anErrorResultOrErrorQuotesTheClisPathButAResultsContentIsLeftAlone() {
    List<MessagePaths.Translated> translated =
        List.of(new MessagePaths.Translated("/workspaces/app/d", "/home/me/app/d"));
    JsonNode isError =
        json(
            "{'jsonrpc':'2.0','id':3,'result':{'isError':true,'content':[{'type':'text','text':'filePath names a directory, not a file: /home/me/app/d'}]}}");
    JsonNode error =
        json("{'jsonrpc':'2.0','id':3,'error':{'code':-32602,'message':'bad /home/me/app/d'}}");
    JsonNode closed =
        json(
            "{'jsonrpc':'2.0','id':4,'result':{'content':[{'type':'text','text':'{\\'content\\':\\'see /home/me/app/d\\'}'}]}}");
    String closedBefore = closed.toString();

    MessagePaths.answerToCli(isError, translated);
    MessagePaths.answerToCli(error, translated);
    MessagePaths.answerToCli(closed, translated);

    assertThat(isError.path("result").path("content").path(0).path("text").asString())
        .isEqualTo("filePath names a directory, not a file: /workspaces/app/d");
    assertThat(error.path("error").path("message").asString()).isEqualTo("bad /workspaces/app/d");
    assertThat(closed.toString()).isEqualTo(closedBefore);
  }
}
