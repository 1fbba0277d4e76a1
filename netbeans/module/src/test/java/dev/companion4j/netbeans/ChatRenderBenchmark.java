package dev.companion4j.netbeans;

import dev.companion4j.acp.ChatView;
import dev.companion4j.daemon.conversation.Conversation;
import dev.companion4j.daemon.conversation.DaemonChat;
import dev.companion4j.daemon.conversation.Entry;
import java.awt.EventQueue;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.swing.JFrame;
import javax.swing.RepaintManager;

/**
 * The chat window's cost of one streamed chunk as a conversation grows: the real {@link
 * ChatTopComponent} in a frame of its own (run it on a display, e.g. Xvfb), handed each chunk's
 * view as {@link ChatService} hands it, on the EDT.
 *
 * <p>A conversation of N entries (alternating user and finished assistant messages of about 200
 * characters of Markdown, as the page's benchmark has) and a streaming answer at the end; each of
 * 40 chunks appends a few characters to that answer. Two times per chunk: the window's update (the
 * listener's call), and that plus the layout and painting Swing does before the user sees it.
 * Prints one line per size: entries, median and p90 of both, in milliseconds.
 *
 * <p>The window's update is found by reflection, so that the same program measures the window as it
 * was before incremental rendering (whose listener took the daemon chat's status, not a {@link
 * ChatView}) when that version's classes come first on the class path: see {@code
 * scripts/benchmark.sh chat-render}.
 */
public final class ChatRenderBenchmark {
  private static final int[] SIZES = {10, 1_000, 5_000};
  private static final int CHUNKS = 40;
  private static final int WARM_UP = 10;

  private ChatRenderBenchmark() {}

  public static void main(String[] args) throws Exception {
    System.out.println(
        "ChatTopComponent: "
            + ChatTopComponent.class.getProtectionDomain().getCodeSource().getLocation());
    System.out.println("entries | update median / p90 ms | painted median / p90 ms");
    for (int size : SIZES) {
      double[][] times = measure(size);
      System.out.printf(
          Locale.ROOT,
          "%d | %.2f / %.2f | %.2f / %.2f%n",
          size,
          quantile(times[0], 0.5),
          quantile(times[0], 0.9),
          quantile(times[1], 0.5),
          quantile(times[1], 0.9));
    }
    System.exit(0);
  }

  /** The update times and the painted times of each measured chunk, in milliseconds. */
  private static double[][] measure(int size) throws Exception {
    List<Entry> entries = new ArrayList<>();
    String words = "some words of a long answer, with **markdown** and `code`. ".repeat(3);
    for (int i = 0; i < size; i++) {
      String text = "Entry " + i + ": " + words;
      entries.add(
          i % 2 == 0
              ? new Entry.UserMessage("e" + i, "p" + i, "c", text)
              : new Entry.AssistantMessage("e" + i, "p" + (i - 1), text, false));
    }
    JFrame[] frame = new JFrame[1];
    ChatTopComponent[] window = new ChatTopComponent[1];
    EventQueue.invokeAndWait(
        () -> {
          window[0] = new ChatTopComponent();
          frame[0] = new JFrame("chat-render");
          frame[0].add(window[0]);
          frame[0].setSize(1400, 860);
          frame[0].setVisible(true);
        });
    Method update = update();
    StringBuilder streamed = new StringBuilder("c");
    // The whole conversation first, as when the window opens on it; then the chunks.
    timeChunk(update, window[0], view(entries, streamed));
    double[][] times = new double[2][CHUNKS];
    for (int k = 0; k < WARM_UP + CHUNKS; k++) {
      streamed.append(" c").append(k);
      double[] t = timeChunk(update, window[0], view(entries, streamed));
      if (k >= WARM_UP) {
        times[0][k - WARM_UP] = t[0];
        times[1][k - WARM_UP] = t[1];
      }
      // Chunks arrive apart: Swing's own deferred work runs between them, as in the IDE.
      Thread.sleep(5);
    }
    EventQueue.invokeAndWait(frame[0]::dispose);
    return times;
  }

  /** One chunk on the EDT: the update's time, and the time until it is laid out and painted. */
  private static double[] timeChunk(Method update, ChatTopComponent window, DaemonChat.Status view)
      throws Exception {
    double[] t = new double[2];
    Exception[] failed = new Exception[1];
    EventQueue.invokeAndWait(
        () -> {
          try {
            long start = System.nanoTime();
            update.invoke(window, argument(update, view));
            long updated = System.nanoTime();
            RepaintManager paint = RepaintManager.currentManager(window);
            paint.validateInvalidComponents();
            paint.paintDirtyRegions();
            long painted = System.nanoTime();
            t[0] = (updated - start) / 1e6;
            t[1] = (painted - start) / 1e6;
          } catch (ReflectiveOperationException e) {
            failed[0] = e;
          }
        });
    if (failed[0] != null) {
      throw failed[0];
    }
    return t;
  }

  /** The window's listener: {@code render(ChatView)}, or {@code render(DaemonChat.Status)}. */
  private static Method update() {
    Method render =
        Arrays.stream(ChatTopComponent.class.getDeclaredMethods())
            .filter(m -> m.getName().equals("render") && m.getParameterCount() == 1)
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("ChatTopComponent has no render(view)"));
    render.setAccessible(true);
    return render;
  }

  private static Object argument(Method update, DaemonChat.Status status) {
    return update.getParameterTypes()[0] == DaemonChat.Status.class
        ? status
        : ChatView.daemon(status);
  }

  /** The daemon chat's status with the conversation and the answer streamed so far. */
  private static DaemonChat.Status view(List<Entry> entries, CharSequence streamed) {
    List<Entry> all = new ArrayList<>(entries);
    all.add(new Entry.AssistantMessage("streamed", "last", streamed.toString(), true));
    Conversation c =
        new Conversation(
            Conversation.State.CONNECTED,
            "",
            "m",
            "default",
            true,
            all,
            List.of(),
            List.of(),
            Set.of(),
            all.size() + 1L);
    return new DaemonChat.Status("127.0.0.1:4170", "/ws", "s", "", List.of("m"), Optional.of(c));
  }

  private static double quantile(double[] times, double q) {
    double[] sorted = times.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
  }
}
