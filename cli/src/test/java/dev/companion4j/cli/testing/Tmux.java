package dev.companion4j.cli.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A program in a pseudo-terminal: a detached tmux session on a private server socket, driven by
 * keystrokes and read back from the screen.
 *
 * <p>The program runs under {@code sh}, which reports its exit status on the screen and keeps the
 * pane open. tmux's own {@code pane_dead_status} is not used: it stays empty until the tmux server
 * reaps the child, which it was seen not to do for up to a minute here.
 */
public final class Tmux implements AutoCloseable {
  private static final Path TMUX = Path.of("/usr/bin/tmux");
  private static final Pattern EXITED = Pattern.compile("\\[exited with status (\\d+)]");

  private final Path socketDir;

  /** The session, or one window of it ({@link #window}). */
  private final String session;

  private Tmux(Path socketDir, String session) {
    this.socketDir = socketDir;
    this.session = session;
  }

  /** Starts the command (one shell word per element) in a 160x50 terminal. */
  public static Tmux start(List<String> command) throws IOException {
    return start(command, List.of());
  }

  /**
   * Starts the command in {@code cwd} with exactly {@code env} (none of this JVM's environment), as
   * a user's terminal would run it there.
   */
  public static Tmux start(List<String> command, Path cwd, Map<String, String> env)
      throws IOException {
    List<String> prefix = new ArrayList<>(List.of("env", "-i", "-C", cwd.toString()));
    env.forEach((k, v) -> prefix.add(k + "=" + v));
    return start(command, prefix);
  }

  private static Tmux start(List<String> command, List<String> prefix) throws IOException {
    Tmux t = new Tmux(Files.createTempDirectory("companion4j-tmux-"), "chat");
    t.tmux(
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        t.session,
        "-x",
        "160",
        "-y",
        "50",
        shellLine(command, prefix));
    return t;
  }

  /**
   * Starts the command in a new window of this terminal's tmux server, in {@code cwd} with exactly
   * {@code env}, as a user opens a second window; closing the window leaves the server running.
   */
  public Tmux window(String name, List<String> command, Path cwd, Map<String, String> env)
      throws IOException {
    List<String> prefix = new ArrayList<>(List.of("env", "-i", "-C", cwd.toString()));
    env.forEach((k, v) -> prefix.add(k + "=" + v));
    tmux("new-window", "-d", "-t", session, "-n", name, shellLine(command, prefix));
    return new Tmux(socketDir, session + ":" + name);
  }

  private static String shellLine(List<String> command, List<String> prefix) {
    // The trap keeps sh waiting through Ctrl-C, which the program handles itself.
    StringBuilder line = new StringBuilder("trap : INT; ");
    for (String word : concat(prefix, command)) {
      line.append('\'').append(word.replace("'", "'\\''")).append("' ");
    }
    return line.append("; echo \"[exited with status $?]\"; exec sleep 86400").toString();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** Types text literally. */
  public void type(String text) throws IOException {
    tmux("send-keys", "-t", session, "-l", text);
  }

  /** Presses keys by tmux name: {@code Enter}, {@code C-c}. */
  public void press(String key) throws IOException {
    tmux("send-keys", "-t", session, key);
  }

  /** The whole screen and scrollback, wrapped lines joined. */
  public String screen() throws IOException {
    return tmux("capture-pane", "-p", "-J", "-t", session, "-S", "-5000");
  }

  /** The visible screen alone, wrapped lines joined. */
  public String visibleScreen() throws IOException {
    return tmux("capture-pane", "-p", "-J", "-t", session);
  }

  /**
   * The visible screen with its colours as terminal escape sequences, for a screenshot: see {@code
   * scripts/screenshot-terminal.sh}.
   */
  public String colouredScreen() throws IOException {
    return tmux("capture-pane", "-p", "-e", "-t", session);
  }

  /** The program's exit status once it ended, else {@code null}. */
  public Integer exitStatus() throws IOException {
    Matcher exited = EXITED.matcher(screen());
    return exited.find() ? Integer.valueOf(exited.group(1)) : null;
  }

  /** Ends the terminal and whatever still runs in it. */
  @Override
  public void close() {
    if (session.contains(":")) {
      try {
        tmux("kill-window", "-t", session);
      } catch (IOException e) {
        // The window or its server is already gone.
      }
      return;
    }
    try {
      tmux("kill-server");
    } catch (IOException e) {
      // The server is already gone.
    }
    try {
      Files.deleteIfExists(socketDir.resolve("socket"));
      Files.deleteIfExists(socketDir);
    } catch (IOException e) {
      // A leftover temp folder is harmless.
    }
  }

  private String tmux(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Files.isExecutable(TMUX) ? TMUX.toString() : "tmux");
    command.add("-S");
    command.add(socketDir.resolve("socket").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("tmux " + String.join(" ", args) + " failed: " + output);
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
