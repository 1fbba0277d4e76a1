package dev.companion4j.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code /ide/code/} routes where the extension's tools do not reach: a rename the host cannot
 * show or write, the long poll's refusals, and how a query is checked before the host is asked.
 * CodeToolsTest of the extension covers the rest through the tools.
 */
class CodeRoutesTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir Path temp;

  @Test
  void aRenameTheHostCannotShowOrWriteEndsWithItsReasonAndNoFileChanges() throws Exception {
    Path ws = Files.createDirectories(temp.resolve("ws"));
    Path a = Files.writeString(ws.resolve("a.txt"), "old\n");
    Host host = new Host(ws);
    try (Companion companion = CompanionFixture.builder(temp, host).build()) {
      companion.start();
      String body = "{\"path\":\"a.txt\",\"line\":1,\"column\":1,\"newName\":\"renamed\"}";

      HttpResponse<String> proposed = post(companion, "rename", body);
      assertThat(proposed.statusCode()).isEqualTo(202);
      String id = id(proposed.body());
      assertThat(get(companion, "changes/" + id + "?wait=10").body())
          .contains("\"state\":\"notShown\"")
          .contains("Test IDE cannot show a change of several files for review");

      host.shows = true;
      String shown = id(post(companion, "rename", body).body());
      host.awaitReview().accept(Map.of());
      assertThat(get(companion, "changes/" + shown + "?wait=10").body())
          .contains("\"state\":\"writeFailed\"")
          .contains("\"error\":\"the disk is full\"")
          .contains("\"files\":[\"" + a + "\"]");
      assertThat(Files.readString(a)).isEqualTo("old\n");

      assertThat(get(companion, "changes/" + shown + "?wait=61").statusCode()).isEqualTo(400);
      assertThat(get(companion, "changes/0123456789abcdef").statusCode()).isEqualTo(404);
      assertThat(get(companion, "changes/../../status").statusCode()).isNotEqualTo(200);
    }
  }

  @Test
  void aQueryIsCheckedBeforeTheHostIsAskedAndARelativePathNamesAFileOfAnyRoot() throws Exception {
    Path one = Files.createDirectories(temp.resolve("one"));
    Path two = Files.createDirectories(temp.resolve("two"));
    Path b = Files.writeString(two.resolve("b.txt"), "é😀x\n");
    Host host = new Host(one, two);
    try (Companion companion = CompanionFixture.builder(temp, host).build()) {
      companion.start();

      // Columns count code points: the emoji is one, so x is the third.
      HttpResponse<String> found =
          post(companion, "definition", "{\"path\":\"b.txt\",\"line\":1,\"column\":3}");
      assertThat(found.statusCode()).isEqualTo(200);
      assertThat(host.asked)
          .containsExactly(new CodeQuery.Definition(new CodeQuery.Position(b, 1, 3)));
      assertThat(found.body()).isEqualTo("{\"results\":[],\"more\":0}");
      assertThat(
              post(companion, "definition", "{\"path\":\"b.txt\",\"line\":1,\"column\":5}").body())
          .contains("column 5 is outside line 1 of b.txt, which has 3 characters");

      for (String bad :
          List.of(
              "[]",
              "{\"path\":\"b.txt\",\"line\":0,\"column\":1}",
              "{\"path\":\"b.txt\",\"line\":1.5,\"column\":1}",
              "{\"path\":7,\"line\":1,\"column\":1}",
              "{\"path\":\"../one/../../etc/passwd\",\"line\":1,\"column\":1}")) {
        HttpResponse<String> refused = post(companion, "definition", bad);
        assertThat(refused.statusCode()).as(bad).isEqualTo(400);
        assertThat(refused.body()).as(bad).startsWith("{\"error\":").doesNotContain("Exception");
      }
      assertThat(post(companion, "workspaceSymbols", "{\"query\":\"  \"}").statusCode())
          .isEqualTo(400);
      assertThat(post(companion, "nonsense", "{}").statusCode()).isEqualTo(404);
      assertThat(get(companion, "definition").statusCode()).isEqualTo(404);
      assertThat(host.asked).hasSize(1);
    }
  }

  private static String id(String body) {
    return body.replaceAll(".*\"change\":\"([0-9a-f]{16})\".*", "$1");
  }

  private HttpResponse<String> post(Companion companion, String route, String body)
      throws Exception {
    return http.send(
        request(companion, route).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(Companion companion, String route) throws Exception {
    return http.send(request(companion, route).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder request(Companion companion, String route) {
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + companion.port() + "/ide/code/" + route))
        .header("Authorization", "Bearer " + companion.authToken());
  }

  /** Answers nothing found, renames to one line, shows changes once told to, and cannot write. */
  private static final class Host implements CompanionHost {
    final List<CodeQuery> asked = new CopyOnWriteArrayList<>();
    volatile boolean shows;
    private volatile ChangeReview review;
    private final List<Path> roots;

    Host(Path... roots) {
      this.roots = List.of(roots);
    }

    @Override
    public IdeInfo ideInfo() {
      return new IdeInfo("test", "Test IDE");
    }

    @Override
    public List<Path> workspaceRoots() {
      return roots;
    }

    @Override
    public Set<HostFeature> features() {
      return EnumSet.allOf(HostFeature.class);
    }

    @Override
    public void showDiff(PendingDiff diff, DiffReview review) {}

    @Override
    public Optional<String> closeDiff(PendingDiff diff) {
      return Optional.empty();
    }

    @Override
    public List<CodeResult> findCode(CodeQuery query) {
      asked.add(query);
      return List.of();
    }

    @Override
    public Map<Path, String> renameEdits(CodeQuery.Rename rename) {
      return Map.of(rename.at().path(), rename.newName() + "\n");
    }

    @Override
    public void showChange(PendingChange change, ChangeReview review) throws DiffViewException {
      if (!shows) {
        throw new DiffViewException("Test IDE cannot show a change of several files for review");
      }
      this.review = review;
    }

    @Override
    public void writeChange(Map<Path, String> contents) throws HostActionException {
      throw new HostActionException("the disk is full");
    }

    ChangeReview awaitReview() {
      return org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> review, r -> r != null);
    }
  }
}
