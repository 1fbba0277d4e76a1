package dev.companion4j.netbeans;

import static dev.companion4j.netbeans.ModuleAccess.call;
import static dev.companion4j.netbeans.ModuleAccess.companion;
import static dev.companion4j.netbeans.ModuleAccess.service;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.swing.JEditorPane;
import javax.swing.JLabel;
import javax.swing.JList;
import javax.swing.ListModel;
import junit.framework.Test;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.awt.StatusDisplayer;
import org.openide.filesystems.FileUtil;
import org.openide.windows.TopComponent;

/**
 * A change of several files proposed through the engine ({@code Companion.proposeChange}, as a
 * rename is) reviewed in the booted platform: one window lists every file and shows each one's diff
 * with the proposed side editable; one Accept or Reject decides for all, the user's edits included;
 * closing the window rejects; a file changed on disk is reported; a stop closes the window.
 */
public class NetBeansChangeReviewIT extends NbTestCase {
  private static final Duration WAIT =
      Duration.ofSeconds(Long.getLong("companion4j.waitSeconds", 60));
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("change-review");
  private static final Path ALPHA = WORKSPACE.resolve("alpha.txt");
  private static final Path BETA = WORKSPACE.resolve("src").resolve("beta.txt");
  private static final Path GAMMA = WORKSPACE.resolve("gamma.txt");
  private static final String PROPOSER = "Rename tool";

  public NetBeansChangeReviewIT(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansChangeReviewIT.class)
        .addTest(
            "testAcceptWritesEveryFileWithTheUsersEdit",
            "testRejectFromTheButton",
            "testClosingTheWindowRejects",
            "testAFileChangedOnDiskIsReported",
            "testStoppingTheCompanionClosesTheWindow")
        .suite();
  }

  /** Whether the project is open in this IDE: the tests share it. */
  private static boolean projectOpen;

  @Override
  protected void setUp() throws Exception {
    if (!projectOpen) {
      projectOpen = true;
      Ui.freshProjectFolder(WORKSPACE);
      Project project =
          ProjectManager.getDefault().findProject(FileUtil.toFileObject(WORKSPACE.toFile()));
      OpenProjects.getDefault().open(new Project[] {project}, false);
    }
    Files.createDirectories(BETA.getParent());
    Files.writeString(ALPHA, "class Alpha uses Old\n");
    Files.writeString(BETA, "Old one\nOld two\n");
    Files.writeString(GAMMA, "see Old\n");
    // A change is proposed only inside a workspace root: the companion has the project once the
    // project is open and the companion runs.
    ModuleAccess.awaitCompanionServing(WORKSPACE, WAIT);
  }

  public void testAcceptWritesEveryFileWithTheUsersEdit() throws Exception {
    CompletableFuture<?> outcome = propose();
    TopComponent window = awaitChangeWindow(outcome);

    JList<?> list = Edt.call(() -> Ui.find(window, JList.class, "companion4j.change.files"));
    assertEquals(
        "every file is listed, in the proposed order",
        List.of("alpha.txt", "src/beta.txt", "gamma.txt"),
        Edt.call(() -> items(list.getModel())));
    JLabel proposer = Edt.call(() -> Ui.find(window, JLabel.class, "companion4j.change.proposer"));
    assertEquals("Change of 3 files proposed by " + PROPOSER, Edt.call(proposer::getText));

    // Each file's diff shows its proposal on the editable side; the user edits beta's.
    Ui.awaitEditableRightSide(window, "class Alpha uses New\n");
    select(list, 2);
    Ui.awaitEditableRightSide(window, "see New\n");
    select(list, 1);
    JEditorPane beta = Ui.awaitEditableRightSide(window, "New one\nNew two\n");
    Edt.call(
        () -> {
          beta.getDocument().insertString(0, "// edited\n", null);
          return null;
        });

    Ui.click(window, "companion4j.change.accept");
    Object accepted = outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals("Accepted", accepted.getClass().getSimpleName());
    Map<?, ?> contents = (Map<?, ?>) call(accepted, "contents");
    assertEquals("class Alpha uses New\n", contents.get(ALPHA.toRealPath()));
    assertEquals("// edited\nNew one\nNew two\n", contents.get(BETA.toRealPath()));
    assertEquals("see New\n", contents.get(GAMMA.toRealPath()));
    Await.until(WAIT, () -> !Edt.call(window::isOpened));

    // A second click on the answered window changes nothing: the change ended once, accepted.
    Ui.click(window, "companion4j.change.reject");
    assertTrue(((List<?>) call(companion(), "pendingChanges")).isEmpty());
    assertSame(accepted, outcome.get());
    assertEquals(
        "the companion writes nothing itself", "Old one\nOld two\n", Files.readString(BETA));
  }

  public void testRejectFromTheButton() throws Exception {
    CompletableFuture<?> outcome = propose();
    TopComponent window = awaitChangeWindow(outcome);
    Ui.awaitEditableRightSide(window, "class Alpha uses New\n");

    Ui.click(window, "companion4j.change.reject");

    assertEquals(
        "Rejected", outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS).getClass().getSimpleName());
    Await.until(WAIT, () -> !Edt.call(window::isOpened));
  }

  public void testClosingTheWindowRejects() throws Exception {
    CompletableFuture<?> outcome = propose();
    TopComponent window = awaitChangeWindow(outcome);

    Edt.call(window::close);

    assertEquals(
        "Rejected", outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS).getClass().getSimpleName());
  }

  public void testAFileChangedOnDiskIsReported() throws Exception {
    CompletableFuture<?> outcome = propose();
    TopComponent window = awaitChangeWindow(outcome);
    Ui.awaitEditableRightSide(window, "class Alpha uses New\n");
    Files.writeString(GAMMA, "see Old, edited elsewhere\n");

    Ui.click(window, "companion4j.change.accept");

    Object ended = outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals("ChangedOnDisk", ended.getClass().getSimpleName());
    assertEquals(List.of(GAMMA.toRealPath()), call(ended, "paths"));
    assertEquals(
        "Nothing was written: gamma.txt changed on disk since "
            + PROPOSER
            + " proposed this change",
        Edt.call(() -> StatusDisplayer.getDefault().getStatusText()));
    Await.until(WAIT, () -> !Edt.call(window::isOpened));
  }

  public void testStoppingTheCompanionClosesTheWindow() throws Exception {
    CompletableFuture<?> outcome = propose();
    TopComponent window = awaitChangeWindow(outcome);

    call(service(), "restart");

    assertEquals(
        "Stopped", outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS).getClass().getSimpleName());
    Await.until(WAIT, () -> !Edt.call(window::isOpened));
  }

  /** Proposes the same three-file change, a rename of Old to New, as the rename tool does. */
  private static CompletableFuture<?> propose() throws Exception {
    Map<Path, String> files = new LinkedHashMap<>();
    files.put(ALPHA.toRealPath(), "class Alpha uses New\n");
    files.put(BETA.toRealPath(), "New one\nNew two\n");
    files.put(GAMMA.toRealPath(), "see New\n");
    CompletableFuture<?> outcome =
        (CompletableFuture<?>) call(companion(), "proposeChange", PROPOSER, files);
    if (outcome.isCompletedExceptionally()) {
      refused(outcome);
    }
    return outcome;
  }

  /** The change's review window once it shows; fails at once when NetBeans refused to show it. */
  private static TopComponent awaitChangeWindow(CompletableFuture<?> outcome) throws Exception {
    return Await.until(
        WAIT,
        () -> {
          if (outcome.isCompletedExceptionally()) {
            refused(outcome);
          }
          return Edt.call(
              () ->
                  TopComponent.getRegistry().getOpened().stream()
                      .filter(tc -> "companion4j-change".equals(tc.getName()))
                      .findFirst()
                      .orElse(null));
        },
        tc -> tc != null);
  }

  private static void refused(CompletableFuture<?> outcome) throws InterruptedException {
    try {
      outcome.get();
    } catch (ExecutionException e) {
      throw new AssertionError("the change is refused: " + e.getCause(), e.getCause());
    }
  }

  private static void select(JList<?> list, int index) throws Exception {
    Edt.call(
        () -> {
          list.setSelectedIndex(index);
          return null;
        });
  }

  private static List<String> items(ListModel<?> model) {
    return java.util.stream.IntStream.range(0, model.getSize())
        .mapToObj(i -> model.getElementAt(i).toString())
        .toList();
  }
}
