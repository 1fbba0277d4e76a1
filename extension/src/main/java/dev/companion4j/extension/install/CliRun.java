package dev.companion4j.extension.install;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One run of a CLI's {@code extensions} command without a person: its output reaches the user as
 * the CLI prints it, the questions the installer expects are answered as they appear, and any other
 * question stops the run at once, quoted, instead of waiting for an answer nobody gives.
 */
final class CliRun {
  /** What {@link #run} returns when it stopped the CLI; it has then said why. */
  static final int STOPPED = 124;

  /** The whole run, question or not: installing a copy takes seconds. */
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  /**
   * A line that looks like a question and is followed by this much silence is waiting for an
   * answer.
   */
  private static final Duration QUESTION_IDLE = Duration.ofSeconds(3);

  /** A person at a terminal answers; this only ends a run left unattended. */
  private static final Duration TERMINAL_TIMEOUT = Duration.ofMinutes(15);

  private static final Pattern ANSI = Pattern.compile("\u001B(\\[[0-9;?]*[A-Za-z]|[78])");

  /** How the CLIs end a question: "[y/N]: ", "Do you want to continue?", "? Name ›". */
  private static final Pattern QUESTION_END = Pattern.compile(".*[:?\\])>›]\\s*$");

  /**
   * A question the installer answers.
   *
   * @param context text the output must hold for this answer to fit (empty: none)
   * @param question the text that asks
   * @param answer the line sent back
   * @param note what the user is told was answered
   */
  record Prompt(String context, String question, String answer, String note) {}

  private final PrintStream out;
  private final String cliName;
  private final List<String> command;
  private final Path workingDir;
  private final List<Prompt> unanswered;
  private final boolean quiet;

  /**
   * Everything the CLI printed; guarded by itself, like {@link #lastOutput} and {@link
   * #atLineStart}.
   */
  private final StringBuilder output = new StringBuilder();

  private long lastOutput = System.nanoTime();
  private boolean atLineStart = true;

  /**
   * @param workingDir where the CLI runs: Gemini CLI trusts it too when its trust question is
   *     answered
   */
  CliRun(
      PrintStream out,
      String cliName,
      List<String> command,
      Path workingDir,
      List<Prompt> prompts) {
    this(out, cliName, command, workingDir, prompts, false);
  }

  private CliRun(
      PrintStream out,
      String cliName,
      List<String> command,
      Path workingDir,
      List<Prompt> prompts,
      boolean quiet) {
    this.out = out;
    this.cliName = cliName;
    this.command = List.copyOf(command);
    this.workingDir = workingDir;
    this.unanswered = new ArrayList<>(prompts);
    this.quiet = quiet;
  }

  /** Runs {@code cliCommand args} showing nothing, answering nothing; returns its exit status. */
  static int quiet(List<String> cliCommand, List<String> args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(cliCommand);
    command.addAll(args);
    return new CliRun(
            new PrintStream(OutputStream.nullOutputStream()),
            "",
            command,
            Path.of("").toAbsolutePath(),
            List.of(),
            true)
        .run();
  }

  /**
   * Runs {@code command} in {@code workingDir} on this terminal: the person sees its questions and
   * answers them.
   */
  static int atTerminal(List<String> command, Path workingDir, PrintStream out)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).directory(workingDir.toFile()).inheritIO().start();
    if (!p.waitFor(TERMINAL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      stop(p);
      out.println(
          String.join(" ", command)
              + " did not finish within "
              + TERMINAL_TIMEOUT.toMinutes()
              + " minutes; stopped it.");
      return STOPPED;
    }
    return p.exitValue();
  }

  int run() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command)
            .directory(workingDir.toFile())
            .redirectErrorStream(true)
            .start();
    Thread reader = new Thread(() -> relay(p), "companion4j-cli-output");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    int from = 0;
    try (OutputStream stdin = p.getOutputStream()) {
      while (true) {
        String question;
        synchronized (output) {
          if (!p.isAlive()) {
            break;
          }
          Prompt prompt = nextExpected(from);
          if (prompt != null) {
            from = output.indexOf(prompt.question(), from) + prompt.question().length();
            unanswered.remove(prompt);
            say(prompt.note());
            answer(stdin, prompt.answer());
            continue;
          }
          question =
              System.nanoTime() - lastOutput > QUESTION_IDLE.toNanos()
                  ? waitingQuestion(from)
                  : null;
          if (question == null && System.nanoTime() < deadline) {
            output.wait(100);
            continue;
          }
        }
        stop(p);
        if (question != null) {
          say(cliName + " asked a question this installer does not answer: \"" + question + "\"");
          say(
              "Stopped it. Run the same companion4j command at a terminal, without --yes, to answer it yourself.");
        } else {
          say(
              String.join(" ", command)
                  + " did not finish within "
                  + TIMEOUT.toSeconds()
                  + " s; stopped it.");
        }
        return STOPPED;
      }
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return p.waitFor();
  }

  /** The first question the installer expects that the CLI has asked since {@code from}. */
  private Prompt nextExpected(int from) {
    Prompt first = null;
    int firstAt = Integer.MAX_VALUE;
    for (Prompt prompt : unanswered) {
      int at = output.indexOf(prompt.question(), from);
      if (at >= 0 && at < firstAt && output.indexOf(prompt.context()) >= 0) {
        first = prompt;
        firstAt = at;
      }
    }
    return first;
  }

  /** The last line printed since {@code from} when it reads like a question, else null. */
  private String waitingQuestion(int from) {
    String pending = ANSI.matcher(output.substring(from)).replaceAll("");
    String last = pending.substring(pending.lastIndexOf('\n') + 1).strip();
    return QUESTION_END.matcher(last).matches() ? last : null;
  }

  private static void answer(OutputStream stdin, String answer) {
    try {
      stdin.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException closed) {
      // The CLI stopped reading; its exit status tells the rest.
    }
  }

  /** Copies the CLI's output to the user as it comes, and keeps it to look for questions. */
  private void relay(Process p) {
    try (Reader in = new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)) {
      char[] buffer = new char[4096];
      for (int n; (n = in.read(buffer)) > 0; ) {
        String text = new String(buffer, 0, n);
        synchronized (output) {
          output.append(text);
          lastOutput = System.nanoTime();
          if (!quiet) {
            String shown = ANSI.matcher(text).replaceAll("");
            out.print(shown);
            out.flush();
            atLineStart = shown.isEmpty() ? atLineStart : shown.endsWith("\n");
          }
          output.notifyAll();
        }
      }
    } catch (IOException ended) {
      // The CLI is gone; what it said was shown.
    }
  }

  /** A line of the installer's own, on a line of its own after the CLI's output. */
  private void say(String line) {
    synchronized (output) {
      if (quiet) {
        return;
      }
      out.println(atLineStart ? line : "\n" + line);
      atLineStart = true;
    }
  }

  private static void stop(Process p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }
}
