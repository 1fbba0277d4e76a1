package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.companion4j.testkit.McpTapClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proposals a hostile or careless CLI (or a model steering it) can send: a path naming a FIFO, a
 * huge file, a symlink out of the workspace. Each gets a precise tool error, and the companion
 * keeps serving everyone else. The time bounds below only guard against hangs.
 */
class HostileProposalTest {
  private static final Duration HANG_GUARD = Duration.ofSeconds(60);

  @TempDir Path temp;
  CompanionFixture fixture;

  @BeforeEach
  void start() throws Exception {
    fixture = CompanionFixture.start(temp);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void openDiffOnAFifoIsRefusedAndPinsNoServerThread() throws Exception {
    Path fifo = fixture.workspace().resolve("pipe.txt");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();

    // More calls than the server has threads: each must come back, and serving must go on.
    List<String> errors = new ArrayList<>();
    assertTimeoutPreemptively(
        HANG_GUARD,
        () -> {
          for (int i = 0; i < 80; i++) {
            errors.add(errorOf(Map.of("filePath", fifo.toString(), "newContent", "x")));
          }
        });

    assertThat(errors).allSatisfy(e -> assertThat(e).startsWith("filePath is not a regular file"));
    assertTimeoutPreemptively(
        HANG_GUARD,
        () -> {
          try (McpTapClient late =
              new McpTapClient(
                  fixture.companion().port(), fixture.companion().authToken(), "late")) {
            assertThat(late.client.listTools().tools()).hasSize(2);
          }
          Path ok = Files.writeString(fixture.workspace().resolve("ok.txt"), "ok");
          assertThat(
                  fixture
                      .client()
                      .call("openDiff", Map.of("filePath", ok.toString(), "newContent", "fine"))
                      .isError())
              .isNotEqualTo(true);
        });
    assertThat(fixture.host().shown)
        .extracting(PendingDiff::filePath)
        .containsExactly(fixture.workspace().resolve("ok.txt").toString());
  }

  @Test
  void aSymlinkToAFifoIsRefusedToo() throws Exception {
    Path fifo = fixture.workspace().resolve("real-pipe");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    Path link = Files.createSymbolicLink(fixture.workspace().resolve("link.txt"), fifo);

    String error =
        assertTimeoutPreemptively(
            HANG_GUARD, () -> errorOf(Map.of("filePath", link.toString(), "newContent", "x")));

    assertThat(error).startsWith("filePath is not a regular file");
  }

  @Test
  void aFileOverTheCapIsRefusedWithTheReason() throws Exception {
    Path big = fixture.workspace().resolve("big.log");
    try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(100L * 1024 * 1024);
    }

    String error = errorOf(Map.of("filePath", big.toString(), "newContent", "x"));

    assertThat(error)
        .isEqualTo("The file is larger than 8 MiB, the most the editor reviews: " + big);
    assertThat(fixture.host().shown).isEmpty();
    assertThat(fixture.companion().pendingDiffs()).isEmpty();
  }

  @Test
  void aSymlinkInTheWorkspaceLeadingOutOfItIsNotRead() throws Exception {
    Path secret = Files.writeString(temp.resolve("secret.txt"), "private key material");
    Path link = Files.createSymbolicLink(fixture.workspace().resolve("innocent.txt"), secret);
    Path outsideDir = Files.createDirectories(temp.resolve("outside-dir"));
    Path dirLink = Files.createSymbolicLink(fixture.workspace().resolve("out"), outsideDir);

    String viaFile = errorOf(Map.of("filePath", link.toString(), "newContent", "x"));
    String viaDir =
        errorOf(Map.of("filePath", dirLink.resolve("new.txt").toString(), "newContent", "x"));

    assertThat(viaFile)
        .isEqualTo("filePath resolves to a place outside every workspace root: " + link);
    assertThat(viaDir).startsWith("filePath resolves to a place outside every workspace root");
    assertThat(fixture.host().shown).isEmpty();
  }

  @Test
  void aLinkedDirectoryAnywhereOnThePathCannotLeadOut() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("secret"), "private key material");
    Path deep = Files.createDirectories(outside.resolve("a/b"));
    Files.writeString(outside.resolve("a/secret"), "private key material too");
    Path ws = fixture.workspace();
    Files.createSymbolicLink(ws.resolve("dirlink"), outside);
    Files.createSymbolicLink(ws.resolve("proclink"), Path.of("/proc"));
    Files.createSymbolicLink(ws.resolve("inner"), deep);
    Files.createSymbolicLink(ws.resolve("dangling"), temp.resolve("not-yet"));
    Files.writeString(ws.resolve("secret"), "inside, where the path seems to lead");

    // The CLIs send absolute paths; each of these is one inside the workspace as written.
    List<String> leadingOut =
        List.of(
            ws + "/dirlink/secret",
            ws + "/proclink/self/environ",
            ws + "/dirlink/new-dir/new.txt",
            ws + "/inner/../secret",
            ws + "/inner/../new.txt");
    for (String path : leadingOut) {
      assertThat(errorOf(Map.of("filePath", path, "newContent", "x")))
          .isEqualTo("filePath resolves to a place outside every workspace root: " + path);
    }
    String throughDangling = ws + "/dangling/new.txt";
    assertThat(errorOf(Map.of("filePath", throughDangling, "newContent", "x")))
        .isEqualTo(
            "filePath passes through a symbolic link that leads nowhere: " + throughDangling);
    assertThat(fixture.host().shown).isEmpty();
    assertThat(fixture.companion().pendingDiffs()).isEmpty();
  }

  @Test
  void dotDotAfterALinkWithinTheWorkspaceIsRefusedAsAmbiguous() throws Exception {
    Path ws = fixture.workspace();
    Path deep = Files.createDirectories(ws.resolve("sub/deep"));
    Files.writeString(ws.resolve("sub/x.txt"), "where the kernel leads");
    Files.writeString(ws.resolve("x.txt"), "where the text reads");
    Files.createSymbolicLink(ws.resolve("inner"), deep);
    String path = ws + "/inner/../x.txt";

    assertThat(errorOf(Map.of("filePath", path, "newContent", "x")))
        .isEqualTo(
            "filePath has '..' after a symbolic link, so it names another file than it reads as; "
                + "give it without '..': "
                + path);
    assertThat(fixture.host().shown).isEmpty();
  }

  @Test
  void linkedDirectoriesAndDotDotWithinTheWorkspaceStillWork() throws Exception {
    Path ws = fixture.workspace();
    Path real = Files.createDirectories(ws.resolve("real-dir"));
    Files.writeString(real.resolve("f.txt"), "through the link");
    Files.createSymbolicLink(ws.resolve("alias-dir"), real);
    Files.writeString(ws.resolve("top.txt"), "plain dot-dot");

    McpSchema.CallToolResult viaLink =
        fixture
            .client()
            .call("openDiff", Map.of("filePath", ws + "/alias-dir/f.txt", "newContent", "new"));
    McpSchema.CallToolResult newUnderLink =
        fixture
            .client()
            .call(
                "openDiff", Map.of("filePath", ws + "/alias-dir/more/g.txt", "newContent", "new"));
    McpSchema.CallToolResult dotDot =
        fixture
            .client()
            .call("openDiff", Map.of("filePath", ws + "/real-dir/../top.txt", "newContent", "new"));

    assertThat(List.of(viaLink, newUnderLink, dotDot))
        .allSatisfy(r -> assertThat(r.isError()).as(r.toString()).isNotEqualTo(true));
    assertThat(fixture.host().shown)
        .extracting(PendingDiff::originalContent)
        .containsExactly("through the link", "", "plain dot-dot");
  }

  @Test
  void aSymlinkWithinTheWorkspaceStillWorks() throws Exception {
    Path target = Files.writeString(fixture.workspace().resolve("target.txt"), "inside");
    Path link = Files.createSymbolicLink(fixture.workspace().resolve("alias.txt"), target);

    McpSchema.CallToolResult ack =
        fixture.client().call("openDiff", Map.of("filePath", link.toString(), "newContent", "new"));

    assertThat(ack.isError()).isNotEqualTo(true);
    assertThat(fixture.host().shown)
        .singleElement()
        .extracting(PendingDiff::originalContent)
        .isEqualTo("inside");
  }

  @Test
  void errorAnswersCarryNoJavaInternals() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String session = "\"mcp-session-id\"";
    List<HttpResponse<String>> answers = new ArrayList<>();
    // The SDK answers each of these with a serialized exception of its own.
    answers.add(http.send(get(null), HttpResponse.BodyHandlers.ofString()));
    answers.add(http.send(get("no-such-session"), HttpResponse.BodyHandlers.ofString()));
    answers.add(
        http.send(
            post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
            HttpResponse.BodyHandlers.ofString()));
    answers.add(
        http.send(
            post("no-such-session", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
            HttpResponse.BodyHandlers.ofString()));
    for (String id : List.of("1.5", "null", "123456789012345678901234567890", "{}", "true")) {
      answers.add(
          http.send(
              post(
                  "no-such-session",
                  "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}"),
              HttpResponse.BodyHandlers.ofString()));
    }
    answers.add(
        http.send(
            post(null, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}]"),
            HttpResponse.BodyHandlers.ofString()));
    answers.add(http.send(delete("no-such-session"), HttpResponse.BodyHandlers.ofString()));

    for (HttpResponse<String> answer : answers) {
      assertThat(answer.statusCode())
          .as(answer.request().method() + " " + answer.body())
          .isBetween(400, 499);
      assertThat(answer.body())
          .as(
              answer.request().method()
                  + " with session "
                  + answer.request().headers().firstValue("mcp-session-id"))
          .contains("\"error\"")
          .doesNotContain("stackTrace", "java.", "Exception", "jdk", "at io.", session);
    }
    assertThat(fixture.client().client.listTools().tools()).hasSize(2);
  }

  private HttpRequest.Builder mcp(String sessionId) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + fixture.companion().port() + "/mcp"))
            .header("Authorization", "Bearer " + fixture.companion().authToken());
    if (sessionId != null) {
      b.header("mcp-session-id", sessionId);
    }
    return b;
  }

  private HttpRequest get(String sessionId) {
    return mcp(sessionId).GET().build();
  }

  private HttpRequest delete(String sessionId) {
    return mcp(sessionId).DELETE().build();
  }

  private HttpRequest post(String sessionId, String body) {
    return mcp(sessionId)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private String errorOf(Map<String, Object> args) {
    McpSchema.CallToolResult result = fixture.client().call("openDiff", args);
    assertThat(result.isError()).as("isError for " + args).isTrue();
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }
}
