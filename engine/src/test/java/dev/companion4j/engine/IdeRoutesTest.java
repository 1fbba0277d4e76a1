package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The IDE routes beyond the status: open editors, diagnostics and opening a file, over HTTP. */
class IdeRoutesTest {
  private static final JsonMapper JSON = JsonMapper.shared();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void diagnosticsAreRefusedUntilTheEditorReportsThemThenAnsweredFromMemory(@TempDir Path temp)
      throws Exception {
    List<FileDiagnostics> heard = new CopyOnWriteArrayList<>();
    try (CompanionFixture f =
        CompanionFixture.start(
            temp,
            Set.of(),
            new CompanionListener() {
              @Override
              public void diagnosticsChanged(FileDiagnostics diagnostics) {
                heard.add(diagnostics);
              }
            })) {
      HttpResponse<String> none = send(f, "GET", "/ide/diagnostics", null);
      assertThat(none.statusCode()).isEqualTo(501);
      assertThat(none.body()).contains("Test IDE does not report diagnostics");

      Path a = Files.writeString(f.workspace().resolve("A.java"), "class A { int x = \"s\"; }\n");
      Path b = Files.writeString(f.workspace().resolve("B.java"), "class B {}\n");
      f.companion()
          .editorEvent(
              new EditorEvent.DiagnosticsChanged(
                  b,
                  List.of(
                      new Diagnostic(
                          new TextRange(1, 1, 1, 6),
                          Diagnostic.Severity.WARNING,
                          "unused class",
                          "lint"))));
      f.companion()
          .editorEvent(
              new EditorEvent.DiagnosticsChanged(
                  a,
                  List.of(
                      new Diagnostic(
                          new TextRange(1, 1, 1, 2), Diagnostic.Severity.HINT, "a hint", null),
                      new Diagnostic(
                          new TextRange(1, 19, 1, 22),
                          Diagnostic.Severity.ERROR,
                          "incompatible types: String cannot be converted to int",
                          "javac"))));
      await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 2);

      JsonNode all = JSON.readTree(send(f, "GET", "/ide/diagnostics", null).body());
      assertThat(all.path("files")).hasSize(2);
      JsonNode first = all.path("files").get(0);
      assertThat(first.path("path").asString())
          .as("the file with errors comes first")
          .isEqualTo(a.toString());
      JsonNode error = first.path("diagnostics").get(0);
      assertThat(error.path("severity").asString()).as("most severe first").isEqualTo("error");
      assertThat(error.path("range").path("startLine").asInt()).isEqualTo(1);
      assertThat(error.path("range").path("startCharacter").asInt()).isEqualTo(19);
      assertThat(error.path("source").asString()).isEqualTo("javac");

      JsonNode one = JSON.readTree(send(f, "GET", "/ide/diagnostics?path=" + b, null).body());
      assertThat(one.path("files").get(0).path("diagnostics").get(0).path("message").asString())
          .isEqualTo("unused class");
      assertThat(f.companion().status().features()).contains("diagnostics");

      f.companion().editorEvent(new EditorEvent.FileClosed(a));
      await().atMost(Duration.ofSeconds(10)).until(() -> f.companion().diagnostics().size() == 1);
      assertThat(heard)
          .last()
          .satisfies(
              d -> {
                assertThat(d.path()).isEqualTo(a.toString());
                assertThat(d.diagnostics()).isEmpty();
              });
      assertThat(send(f, "GET", "/ide/diagnostics?path=src/B.java", null).statusCode())
          .isEqualTo(400);
    }
  }

  @Test
  void openEditorsTellTheDirtyOnesAndWhereTheSelectionIs(@TempDir Path temp) throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      Path a = Files.writeString(f.workspace().resolve("A.java"), "class A {}\n");
      Path b = Files.writeString(f.workspace().resolve("B.java"), "class B {}\n");
      f.companion().editorEvent(new EditorEvent.FileFocused(b));
      f.companion().editorEvent(new EditorEvent.FileFocused(a));
      f.companion()
          .editorEvent(new EditorEvent.SelectionChanged(a, "class", new TextRange(1, 1, 1, 6)));
      f.companion().editorEvent(new EditorEvent.DirtyChanged(b, true));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  f.companion().openEditors().size() == 2
                      && f.companion().openEditors().get(1).dirty());

      JsonNode answer = JSON.readTree(send(f, "GET", "/ide/editors", null).body());
      assertThat(answer.path("dirtyStateReported").asBoolean()).isTrue();
      JsonNode active = answer.path("editors").get(0);
      assertThat(active.path("path").asString()).isEqualTo(a.toString());
      assertThat(active.path("active").asBoolean()).isTrue();
      assertThat(active.path("dirty").asBoolean()).isFalse();
      assertThat(active.path("selectedText").asString()).isEqualTo("class");
      assertThat(active.path("selection").path("endCharacter").asInt()).isEqualTo(6);
      assertThat(answer.path("editors").get(1).path("dirty").asBoolean()).isTrue();

      f.companion().editorEvent(new EditorEvent.DirtyChanged(b, false));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !f.companion().openEditors().get(1).dirty());
    }
  }

  @Test
  void openingAFileAsksTheHostOnTheEngineThreadAndOnlyInsideTheWorkspace(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp, Set.of(HostFeature.OPEN_FILE))) {
      Path a = Files.writeString(f.workspace().resolve("A.java"), "class A {}\n");
      Path outside = Files.writeString(temp.resolve("secret.txt"), "no\n");
      Files.createSymbolicLink(f.workspace().resolve("link.txt"), outside);

      HttpResponse<String> ok =
          send(f, "POST", "/ide/open", "{\"path\":\"" + a + "\",\"line\":3,\"character\":2}");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(ok.body()).path("message").asString())
          .isEqualTo("Opened A.java at line 3.");
      assertThat(f.host().opened).containsExactly(a + ":3:2");
      assertThat(f.host().threads).containsOnly("companion4j-engine");

      HttpResponse<String> out =
          send(f, "POST", "/ide/open", "{\"path\":\"" + outside + "\",\"line\":1}");
      assertThat(out.statusCode()).isEqualTo(400);
      assertThat(out.body()).contains("outside the workspace");
      HttpResponse<String> link =
          send(f, "POST", "/ide/open", "{\"path\":\"" + f.workspace().resolve("link.txt") + "\"}");
      assertThat(link.statusCode()).isEqualTo(400);
      assertThat(link.body()).contains("symbolic link");
      assertThat(
              send(
                      f,
                      "POST",
                      "/ide/open",
                      "{\"path\":\"" + f.workspace().resolve("none.txt") + "\"}")
                  .body())
          .contains("no such file");
      assertThat(send(f, "POST", "/ide/open", "{\"path\":\"" + a + "\",\"line\":0}").statusCode())
          .isEqualTo(400);
      assertThat(send(f, "POST", "/ide/open", "{\"line\":1}").statusCode()).isEqualTo(400);
      assertThat(f.host().opened).hasSize(1);

      f.host().refuseOpenWith = "no editor is listening";
      HttpResponse<String> refused = send(f, "POST", "/ide/open", "{\"path\":\"" + a + "\"}");
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.body()).contains("no editor is listening");
    }
  }

  @Test
  void openingRefusesWhatLeadsOutThroughALinkedDirectoryAsProposalsDo(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp, Set.of(HostFeature.OPEN_FILE))) {
      Path ws = f.workspace();
      Path outside = Files.createDirectories(temp.resolve("outside/a/b"));
      Files.writeString(temp.resolve("outside/secret"), "no\n");
      Files.writeString(temp.resolve("outside/a/x.txt"), "no\n");
      Files.writeString(ws.resolve("x.txt"), "inside\n");
      Files.createSymbolicLink(ws.resolve("dirlink"), temp.resolve("outside"));
      Files.createSymbolicLink(ws.resolve("proclink"), Path.of("/proc"));
      Files.createSymbolicLink(ws.resolve("inner"), outside);

      for (String path :
          List.of(ws + "/dirlink/secret", ws + "/proclink/self/environ", ws + "/inner/../x.txt")) {
        HttpResponse<String> refused = send(f, "POST", "/ide/open", "{\"path\":\"" + path + "\"}");
        assertThat(refused.statusCode()).as(path).isEqualTo(400);
        assertThat(refused.body())
            .as(path)
            .contains("leads outside the workspace through a symbolic link");
      }
      assertThat(f.host().opened).isEmpty();
    }
  }

  @Test
  void aRelativePathIsRefusedInTheWordsEveryRouteUsesRepeatingAtMostTheStartOfIt(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp, Set.of(HostFeature.OPEN_FILE))) {
      String relative = "src/" + "x".repeat(20_000) + ".java";

      HttpResponse<String> refused =
          send(f, "POST", "/ide/open", "{\"path\":\"" + relative + "\"}");

      assertThat(refused.statusCode()).isEqualTo(400);
      String error = JSON.readTree(refused.body()).path("error").asString();
      assertThat(error).startsWith("path must be absolute: src/xxx").hasSizeLessThan(300);
      assertThat(f.host().opened).isEmpty();
    }
  }

  @Test
  void positionsBeyondAnIntOrNotWholeAreRefusedWithTheReason(@TempDir Path temp) throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp, Set.of(HostFeature.OPEN_FILE))) {
      Path a = Files.writeString(f.workspace().resolve("A.java"), "class A {}\n");
      for (String number :
          List.of(
              "18446744073709551617",
              "123456789012345678901234567890",
              "9223372036854775808",
              "2147483648",
              "-1",
              "-18446744073709551617",
              "1.5",
              "1e3",
              "1.0")) {
        for (String field : List.of("line", "character")) {
          String line = field.equals("line") ? "" : "\"line\":1,";
          String body = "{\"path\":\"" + a + "\"," + line + "\"" + field + "\":" + number + "}";
          HttpResponse<String> answer = send(f, "POST", "/ide/open", body);
          assertThat(answer.statusCode()).as(body).isEqualTo(400);
          assertThat(answer.body()).as(body).contains(field + " must be a whole number from 1");
        }
      }
      assertThat(f.host().opened).isEmpty();
    }
  }

  @Test
  void diagnosticsWithHugeSourcesAreCappedAndTheRouteKeepsAnswering(@TempDir Path temp)
      throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      String huge = "s".repeat(3 * 1024 * 1024);
      String hugeMessage = "m".repeat(3 * 1024 * 1024);
      for (int i = 0; i < 150; i++) {
        f.companion()
            .editorEvent(
                new EditorEvent.DiagnosticsChanged(
                    f.workspace().resolve("F" + i + ".java"),
                    List.of(
                        new Diagnostic(
                            TextRange.at(1, 1), Diagnostic.Severity.ERROR, hugeMessage, huge))));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> f.companion().diagnostics().size() == 150);

      HttpResponse<String> all = send(f, "GET", "/ide/diagnostics", null);
      assertThat(all.statusCode()).isEqualTo(200);
      JsonNode files = JSON.readTree(all.body()).path("files");
      assertThat(files).hasSize(150);
      for (JsonNode file : files) {
        JsonNode d = file.path("diagnostics").get(0);
        assertThat(d.path("source").asString())
            .hasSize(Diagnostic.MAX_SOURCE_CHARS + 1)
            .endsWith("…");
        assertThat(d.path("message").asString())
            .hasSize(Diagnostic.MAX_MESSAGE_CHARS + 1)
            .endsWith("…");
      }
    }
  }

  @Test
  void aHostThatCannotOpenFilesSaysSo(@TempDir Path temp) throws Exception {
    try (CompanionFixture f = CompanionFixture.start(temp)) {
      Path a = Files.writeString(f.workspace().resolve("A.java"), "class A {}\n");
      HttpResponse<String> answer = send(f, "POST", "/ide/open", "{\"path\":\"" + a + "\"}");
      assertThat(answer.statusCode()).isEqualTo(501);
      assertThat(answer.body()).contains("Test IDE cannot open files on request");
      assertThat(f.host().opened).isEmpty();
      assertThat(send(f, "GET", "/ide/nothing", null).statusCode()).isEqualTo(404);
      assertThat(send(f, "GET", "/ide/editors", null).statusCode()).isEqualTo(200);
    }
  }

  private HttpResponse<String> send(CompanionFixture f, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.companion().port() + path))
            .header("Authorization", "Bearer " + f.companion().authToken())
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
