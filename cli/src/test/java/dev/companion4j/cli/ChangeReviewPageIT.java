package dev.companion4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.companion4j.cli.review.ReviewPage;
import dev.companion4j.cli.testing.BrowserDriver;
import dev.companion4j.engine.ChangeOutcome;
import dev.companion4j.engine.Companion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change of several files on the review page in Chromium: one item with every file's diff, each
 * proposed side editable, one Accept and one Reject for all of them.
 */
class ChangeReviewPageIT {
  private static final String CHANGE_ITEM = "#diff-list li[data-change]";

  @TempDir Path temp;
  private RenameFixture fixture;
  private BrowserDriver browser;
  private Path a;
  private Path b;
  private Map<Path, String> rename;

  @BeforeEach
  void start() throws Exception {
    fixture = RenameFixture.start(temp);
    a = fixture.a();
    b = fixture.b();
    rename = fixture.rename();
    browser = BrowserDriver.start();
    browser.open(ReviewPage.pageUrl(companion().port(), companion().authToken()));
    browser.waitFor("#status[data-state='live']");
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.close();
    }
    fixture.close();
  }

  private Companion companion() {
    return fixture.companion();
  }

  @Test
  void oneItemShowsEveryFileAndOneAcceptDecidesAllWithTheUsersEdit() throws Exception {
    CompletableFuture<ChangeOutcome> outcome = companion().proposeChange("rename", rename);

    browser.waitFor(CHANGE_ITEM);
    assertThat(browser.count("#diff-list li")).as("one item for the whole change").isEqualTo(1);
    assertThat(browser.text(CHANGE_ITEM)).contains("2 files", "A.java", "B.java", "rename");
    browser.waitFor("#change-files .change-file[data-path='" + b + "'] .cm-merge-b");
    assertThat(browser.count("#change-files .change-file .cm-merge-b")).isEqualTo(2);
    assertThat(browser.text("#change-files .change-file[data-path='" + a + "']"))
        .contains("void run()", "void start()");

    browser.click("#change-files .change-file[data-path='" + b + "'] .cm-merge-b .cm-content");
    browser.press("Control+End");
    browser.type("// reviewed in the browser\n");
    browser.click("#accept");

    Map<Path, String> written = new LinkedHashMap<>(rename);
    written.put(b, rename.get(b) + "// reviewed in the browser\n");
    assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Accepted(written));
    browser.waitGone(CHANGE_ITEM);
    browser.waitFor("#review-empty");
  }

  @Test
  void oneRejectDecidesAllAndAFileChangedOnDiskIsNamedWhenAccepting() throws Exception {
    CompletableFuture<ChangeOutcome> rejected = companion().proposeChange("rename", rename);
    browser.waitFor(CHANGE_ITEM);
    browser.click("#reject");
    assertThat(rejected.get(30, TimeUnit.SECONDS)).isEqualTo(new ChangeOutcome.Rejected());
    browser.waitGone(CHANGE_ITEM);

    CompletableFuture<ChangeOutcome> changed = companion().proposeChange("rename", rename);
    browser.waitFor(CHANGE_ITEM);
    Files.writeString(a, "class A {\n  void run() { /* the user's work */ }\n}\n");
    browser.click("#accept");

    assertThat(changed.get(30, TimeUnit.SECONDS))
        .isEqualTo(new ChangeOutcome.ChangedOnDisk(List.of(a)));
    browser.waitFor("#toast", "nothing was written: A.java");
    browser.waitGone(CHANGE_ITEM);
  }
}
