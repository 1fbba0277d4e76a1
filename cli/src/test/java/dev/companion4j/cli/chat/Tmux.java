package dev.companion4j.cli.chat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program in a pseudo-terminal: a detached tmux session on a private server socket, driven by
 * keystrokes and read back from the screen.
 */
final class Tmux implements AutoCloseable {
  private static final Path TMUX = Path.of("/usr/bin/tmux");

  private final String socket;
  private final String session = "chat";

  private Tmux(String socket) {
    this.socket = socket;
  }

  /** Starts the command (one shell word per element) in a 160x50 terminal. */
  static Tmux start(List<String> command) throws IOException {
    String tmux = Files.isExecutable(TMUX) ? TMUX.toString() : "tmux";
    Tmux t = new Tmux("companion4j-chat-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    StringBuilder line = new StringBuilder();
    for (String word : command) {
      line.append('\'').append(word.replace("'", "'\\''")).append("' ");
    }
    t.tmux(tmux, "-f", "/dev/null", "new-session", "-d", "-s", t.session, "-x", "160", "-y", "50", line.toString());
    t.tmux(tmux, "set-option", "-t", t.session, "remain-on-exit", "on");
    return t;
  }

  /** Types text literally. */
  void type(String text) throws IOException {
    tmux("tmux", "send-keys", "-t", session, "-l", text);
  }

  /** Presses keys by tmux name: {@code Enter}, {@code C-c}. */
  void press(String key) throws IOException {
    tmux("tmux", "send-keys", "-t", session, key);
  }

  /** The whole screen and scrollback, wrapped lines joined. */
  String screen() throws IOException {
    return tmux("tmux", "capture-pane", "-p", "-J", "-t", session, "-S", "-5000");
  }

  /** The program's exit status once it ended, else {@code null}. */
  Integer exitStatus() throws IOException {
    String[] state = tmux("tmux", "display-message", "-p", "-t", session, "#{pane_dead} #{pane_dead_status}").trim().split(" ");
    return state[0].equals("1") && state.length > 1 ? Integer.valueOf(state[1]) : null;
  }

  @Override
  public void close() throws IOException {
    tmux("tmux", "kill-server");
  }

  private String tmux(String binary, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(binary.equals("tmux") && Files.isExecutable(TMUX) ? TMUX.toString() : binary);
    command.add("-L");
    command.add(socket);
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
