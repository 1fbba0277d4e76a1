package dev.companion4j.netbeans;

import java.awt.AWTEvent;
import java.awt.EventQueue;
import java.awt.Toolkit;
import java.awt.event.AWTEventListener;
import java.awt.event.HierarchyEvent;
import java.awt.event.InvocationEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.swing.AbstractButton;
import javax.swing.JComponent;
import javax.swing.JEditorPane;
import javax.swing.RepaintManager;
import javax.swing.SwingUtilities;
import junit.framework.Test;
import org.netbeans.api.project.Project;
import org.netbeans.api.project.ProjectManager;
import org.netbeans.api.project.ui.OpenProjects;
import org.netbeans.junit.NbTestCase;
import org.openide.filesystems.FileUtil;
import org.openide.windows.TopComponent;
import org.openide.windows.WindowManager;

/**
 * Proposal to pixels, and back, in the booted platform: a real CLI's {@code IdeClient} proposes an
 * edit ({@code openDiff}) to a file open in the editor, and the time is taken from the CLI's call
 * to the end of the diff window's first paint on the EDT with both sides' text in it; the user's
 * Accept is then performed on the EDT as the window's button performs it, and the time is taken to
 * the CLI's {@code openDiff} promise resolving (it has {@code ide/diffAccepted}). The CLI's
 * wall-clock times ({@code calledAt}, {@code resolvedAt}) are compared with the EDT's {@link
 * Instant#now()}.
 *
 * <p>The EDT's side is split into steps by watching it, not by changing the module: the event queue
 * on top notes when each event begins, hierarchy events show when the diff window appears and when
 * it becomes showing, and the repaint manager notes the end of the first paint pass that covered it
 * once both sides hold their text. The event that builds the window is the companion's {@code
 * invokeLater}, whose {@link InvocationEvent#getWhen()} is when it was posted.
 *
 * <p>A benchmark, not a test: it asserts only that each proposal is shown and accepted, and prints
 * a table (also written to {@code target/pixels-benchmark.txt}). Run by {@code scripts/benchmark.sh
 * pixels-netbeans}.
 */
public class NetBeansPixelsBenchmark extends NbTestCase {
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final Path BUILD = Path.of(System.getProperty("companion4j.buildDir"));
  private static final Path WORKSPACE = BUILD.resolve("workspace").resolve("pixels-bench");
  private static final int WARM_UP = 3;
  private static final int RUNS = Integer.getInteger("companion4j.benchRuns", 30);
  private static final List<String> CLIS =
      List.of(System.getProperty("companion4j.benchClis", "qwen,gemini").split(","));
  private static final String DIFF_WINDOW = "companion4j-diff";

  private static final String[] STEPS = {
    "CLI call -> companion posts the window to the EDT",
    "posted -> the EDT begins it",
    "EDT: diff view built, window shown",
    "shown -> a paint pass begins with both sides' text",
    "the paint pass",
    "PROPOSAL TO PIXELS (CLI call -> painted)",
    "ACCEPT TO CLI (Accept -> CLI's openDiff resolves)",
    "EDT: the Accept action (answer sent, window closed)",
  };

  /**
   * EDT events at least this long, from a window's showing to its paint, are listed; the event that
   * opened the window among them.
   */
  private static final Duration LONG_EVENT = Duration.ofMillis(10);

  public NetBeansPixelsBenchmark(String name) {
    super(name);
  }

  public static Test suite() {
    return Ui.platform(NetBeansPixelsBenchmark.class)
        .addTest("testProposalToPixelsAndAcceptToCli")
        .suite();
  }

  public void testProposalToPixelsAndAcceptToCli() throws Exception {
    Ui.freshProjectFolder(WORKSPACE);
    Map<String, Path> files = new LinkedHashMap<>();
    files.put("20 lines", WORKSPACE.resolve("Small.java"));
    files.put("5,000 lines", WORKSPACE.resolve("Large.java"));
    Files.writeString(files.get("20 lines"), source("Small", 20));
    Files.writeString(files.get("5,000 lines"), source("Large", 5000));
    Edt.call(
        () -> {
          WindowManager.getDefault().getMainWindow().setBounds(0, 0, 1400, 860);
          return null;
        });
    Project project =
        ProjectManager.getDefault().findProject(FileUtil.toFileObject(WORKSPACE.toFile()));
    OpenProjects.getDefault().open(new Project[] {project}, false);
    ModuleAccess.awaitCompanionServing(WORKSPACE, WAIT);
    // The user has the file open, so the diff opens beside its editor.
    for (Path file : files.values()) {
      Ui.openInEditor(file);
    }
    PaintClock clock = PaintClock.install();

    Map<String, CliDriver> clis = new LinkedHashMap<>();
    Map<String, double[][]> times = new LinkedHashMap<>();
    String loadAtStart = Files.readString(Path.of("/proc/loadavg")).trim();
    try {
      for (String name : CLIS) {
        CliDriver cli = CliDriver.start(name, WORKSPACE, BUILD.resolve("cli-logs"));
        clis.put(name, cli);
        Json status = cli.call("connect");
        assertEquals(name + ": " + status, "connected", status.path("status").asString());
        for (String size : files.keySet()) {
          times.put(name + " | " + size, new double[STEPS.length][RUNS]);
        }
      }
      // Interleaved, so that a busy moment of the machine falls on every kind alike.
      for (int run = -WARM_UP; run < RUNS; run++) {
        for (Map.Entry<String, CliDriver> cli : clis.entrySet()) {
          for (Map.Entry<String, Path> file : files.entrySet()) {
            double[] steps = proposeAndAccept(clock, cli.getValue(), file.getValue(), run);
            if (run >= 0) {
              double[][] into = times.get(cli.getKey() + " | " + file.getKey());
              for (int s = 0; s < steps.length; s++) {
                into[s][run] = steps[s];
              }
            }
          }
        }
      }
    } finally {
      for (CliDriver cli : clis.values()) {
        cli.close();
      }
    }

    List<String> table = new ArrayList<>();
    table.add(
        String.format(
            Locale.ROOT,
            "%d proposals of each after %d warm-ups; %d cores, load average at the start: %s",
            RUNS,
            WARM_UP,
            Runtime.getRuntime().availableProcessors(),
            loadAtStart));
    table.add("CLI | file | step | p50 ms | p99 ms | max ms");
    for (Map.Entry<String, double[][]> kind : times.entrySet()) {
      for (int s = 0; s < STEPS.length; s++) {
        double[] sorted = kind.getValue()[s].clone();
        Arrays.sort(sorted);
        table.add(
            String.format(
                Locale.ROOT,
                "%s | %s | %.1f | %.1f | %.1f",
                kind.getKey(),
                STEPS[s],
                NetBeansCodeToolsBenchmark.quantile(sorted, 0.5),
                NetBeansCodeToolsBenchmark.quantile(sorted, 0.99),
                sorted[sorted.length - 1]));
      }
    }
    table.add("load average at the end: " + Files.readString(Path.of("/proc/loadavg")).trim());
    Files.write(BUILD.resolve("pixels-benchmark.txt"), table);
    Files.write(BUILD.resolve("pixels-benchmark-edt.txt"), clock.longEvents);
    table.forEach(System.out::println);
  }

  /** One proposal, shown, painted and accepted; its steps in milliseconds, as {@link #STEPS}. */
  private static double[] proposeAndAccept(PaintClock clock, CliDriver cli, Path file, int run)
      throws Exception {
    String proposal = proposal(Files.readString(file), run);
    clock.longEvents.add(cli.cli + ", " + file.getFileName() + ", run " + run + ":");
    clock.expect();
    CompletableFuture<Json> outcome =
        cli.send("openDiff", Map.of("filePath", file.toString(), "newContent", proposal));
    PaintClock.Shown shown =
        Await.until(
            WAIT,
            () -> {
              if (outcome.isDone()) {
                throw new AssertionError("openDiff ended unshown: " + outcome.getNow(null));
              }
              return clock.shown();
            },
            s -> s != null && s.painted() != null);
    AbstractButton accept =
        Edt.call(() -> Ui.find(shown.window(), AbstractButton.class, "companion4j.accept"));
    Instant[] accepted =
        Edt.call(
            () -> {
              Instant start = Instant.now();
              // Without the 68 ms a doClick() holds the button down for.
              accept.doClick(0);
              return new Instant[] {start, Instant.now()};
            });
    Json answer = outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(cli.cli + ": " + answer, "accepted", answer.path("status").asString());
    assertEquals(proposal, answer.path("content").asString());
    Await.until(WAIT, () -> !Edt.call(shown.window()::isOpened));

    double calledAt = answer.path("calledAt").asDouble();
    double resolvedAt = answer.path("resolvedAt").asDouble();
    return new double[] {
      millis(shown.posted()) - calledAt,
      millis(shown.begun()) - millis(shown.posted()),
      millis(shown.shown()) - millis(shown.begun()),
      millis(shown.paintBegun()) - millis(shown.shown()),
      millis(shown.painted()) - millis(shown.paintBegun()),
      millis(shown.painted()) - calledAt,
      resolvedAt - millis(accepted[0]),
      millis(accepted[1]) - millis(accepted[0]),
    };
  }

  private static double millis(Instant t) {
    return t.getEpochSecond() * 1e3 + t.getNano() / 1e6;
  }

  /** A Java class of {@code lines} lines: one small method a line. */
  private static String source(String name, int lines) {
    StringBuilder s = new StringBuilder();
    s.append("/** Generated for the benchmark. */\npublic class ").append(name).append(" {\n");
    for (int i = 0; i < lines - 3; i++) {
      s.append("    static int step").append(i).append("(int x) { return x * ");
      s.append(i % 7 + 1).append(" + ").append(i).append("; }\n");
    }
    return s.append("}\n").toString();
  }

  /** The file with the method in its middle changed and one added after it: a CLI's edit. */
  private static String proposal(String original, int run) {
    List<String> lines = new ArrayList<>(List.of(original.split("\n", -1)));
    int middle = lines.size() / 2;
    lines.set(middle, "    static int step" + middle + "(int x) { return x - " + run + "; }");
    lines.add(middle + 1, "    static int added" + (run + 100) + "(int x) { return -x; }");
    return String.join("\n", lines);
  }

  /**
   * What the EDT does with one expected diff window: when the event that builds it was posted and
   * began, when the window became showing, and when the first paint pass covering it with both
   * sides' text ended.
   */
  private static final class PaintClock extends RepaintManager implements AWTEventListener {
    /** The EDT's times for one window; {@code painted} is null until painted. */
    record Shown(
        TopComponent window,
        Instant posted,
        Instant begun,
        Instant shown,
        Instant paintBegun,
        Instant painted) {}

    private final StartClock queue = new StartClock();

    /** The EDT's long events between each window shown and its paint, for the record. */
    final List<String> longEvents = Collections.synchronizedList(new ArrayList<>());

    private volatile boolean expecting;
    private volatile Shown current;
    private volatile boolean covered;
    private Instant posted;
    private Instant begun;

    /** Puts the clock on top of the event queue, as the repaint manager and a listener. */
    static PaintClock install() throws Exception {
      PaintClock clock = new PaintClock();
      Toolkit.getDefaultToolkit().getSystemEventQueue().push(clock.queue);
      Edt.call(
          () -> {
            RepaintManager.setCurrentManager(clock);
            Toolkit.getDefaultToolkit().addAWTEventListener(clock, AWTEvent.HIERARCHY_EVENT_MASK);
            return null;
          });
      return clock;
    }

    /** Forgets the last window; the next diff window to appear is timed. */
    void expect() throws Exception {
      Edt.call(
          () -> {
            current = null;
            posted = null;
            begun = null;
            covered = false;
            expecting = true;
            return null;
          });
    }

    /** The expected window's times once it shows, else null. */
    Shown shown() {
      return current;
    }

    @Override
    public void eventDispatched(AWTEvent event) {
      if (!expecting || !(event instanceof HierarchyEvent e)) {
        return;
      }
      TopComponent window = diffWindow(e.getComponent());
      if (window == null) {
        window = diffWindow(e.getChangedParent());
      }
      if (window == null) {
        return;
      }
      if (posted == null && queue.current instanceof InvocationEvent opening) {
        // The first sign of the window: within the event that builds it.
        posted = Instant.ofEpochMilli(opening.getWhen());
        begun = queue.started;
      }
      if ((e.getChangeFlags() & HierarchyEvent.SHOWING_CHANGED) != 0 && window.isShowing()) {
        expecting = false;
        current = new Shown(window, posted, begun, Instant.now(), null, null);
        queue.longEvents = new ArrayList<>();
      }
    }

    @Override
    public void addDirtyRegion(JComponent c, int x, int y, int w, int h) {
      Shown s = current;
      if (s != null
          && s.painted() == null
          && (SwingUtilities.isDescendingFrom(c, s.window())
              || SwingUtilities.isDescendingFrom(s.window(), c))) {
        covered = true;
      }
      super.addDirtyRegion(c, x, y, w, h);
    }

    @Override
    public void paintDirtyRegions() {
      boolean painting = covered;
      Instant begins = Instant.now();
      super.paintDirtyRegions();
      Shown s = current;
      if (painting && s != null && s.painted() == null && holdsText(s.window())) {
        current = new Shown(s.window(), s.posted(), s.begun(), s.shown(), begins, Instant.now());
        longEvents.addAll(queue.longEvents);
        queue.longEvents = null;
      }
    }

    /**
     * Whether both sides of the showing window hold their text: the diff view fills its panes in a
     * later event, and a pass before that paints empty panes.
     */
    private static boolean holdsText(TopComponent window) {
      if (!window.isShowing()) {
        return false;
      }
      List<JEditorPane> panes = Ui.panes(window);
      return panes.size() >= 2
          && panes.stream().filter(p -> p.getDocument().getLength() > 0).count() >= 2;
    }

    private static TopComponent diffWindow(java.awt.Component c) {
      TopComponent window =
          c instanceof TopComponent tc
              ? tc
              : (TopComponent) SwingUtilities.getAncestorOfClass(TopComponent.class, c);
      return window != null && DIFF_WINDOW.equals(window.getName()) ? window : null;
    }
  }

  /** The event queue on top: notes which event the EDT is in, and when it began. */
  private static final class StartClock extends EventQueue {
    volatile AWTEvent current;
    volatile Instant started;

    /** While not null, the events at least {@link #LONG_EVENT} long go in here. */
    List<String> longEvents;

    @Override
    protected void dispatchEvent(AWTEvent event) {
      AWTEvent outer = current;
      Instant outerStart = started;
      current = event;
      started = Instant.now();
      try {
        super.dispatchEvent(event);
      } finally {
        Duration took = Duration.between(started, Instant.now());
        if (longEvents != null && took.compareTo(LONG_EVENT) >= 0) {
          longEvents.add(String.format(Locale.ROOT, "%5d ms  %.200s", took.toMillis(), event));
        }
        current = outer;
        started = outerStart;
      }
    }
  }
}
