package dev.companion4j.extension.hook;

import java.util.ArrayList;
import java.util.List;

/**
 * A POSIX/bash command line read the way the shell reads it, far enough for the shell policy:
 * simple commands with their words after quote removal, their redirections and whether a pipe feeds
 * them; the bodies of command and process substitutions, for the policy to read in turn. What only
 * running the line would tell (a variable's value, a substitution's output, a glob) is marked as
 * unknown, never guessed; globs and braces stay in the text for the policy to see. Not a full
 * grammar: keywords and functions come out as plain words, which the policy skips.
 */
final class ShellSyntax {
  /**
   * A word after quote removal.
   *
   * @param text its literal text; the parts that only an expansion would give are left out
   * @param unknown whether an expansion or substitution makes part of it unknown here
   */
  record Word(String text, boolean unknown) {}

  /**
   * A redirection.
   *
   * @param operator {@code >}, {@code >>}, {@code >|}, {@code &>}, {@code &>>}, {@code <>}, {@code
   *     <}, {@code <<}, {@code <<-}, {@code <<<}, {@code >&}, {@code <&}
   * @param target the word after it
   */
  record Redirect(String operator, Word target) {}

  /**
   * A simple command.
   *
   * @param words its words, assignments and keywords included
   * @param redirects its redirections
   * @param piped whether a pipe feeds its standard input
   */
  record Command(List<Word> words, List<Redirect> redirects, boolean piped) {}

  /**
   * A parsed command line.
   *
   * @param commands its simple commands, in order
   * @param substitutions the bodies of its command and process substitutions, unparsed
   * @param complete false when a quote, substitution or escape was left open
   */
  record Script(List<Command> commands, List<String> substitutions, boolean complete) {}

  private final String s;
  private int i;
  private final List<Command> commands = new ArrayList<>();
  private final List<String> substitutions = new ArrayList<>();
  private boolean complete = true;

  private List<Word> words = new ArrayList<>();
  private List<Redirect> redirects = new ArrayList<>();
  private boolean piped;
  private String pendingRedirect;

  private final StringBuilder word = new StringBuilder();
  private boolean inWord;
  private boolean unknown;

  private ShellSyntax(String s) {
    this.s = s;
  }

  static Script parse(String line) {
    ShellSyntax p = new ShellSyntax(line);
    p.run();
    return new Script(List.copyOf(p.commands), List.copyOf(p.substitutions), p.complete);
  }

  private void run() {
    while (i < s.length()) {
      char c = s.charAt(i);
      switch (c) {
        case ' ', '\t' -> {
          endWord();
          i++;
        }
        case '\n', ';', '(', ')' -> {
          endCommand(false);
          i++;
        }
        case '#' -> {
          if (inWord) {
            append(c);
          } else {
            int nl = s.indexOf('\n', i);
            i = nl < 0 ? s.length() : nl;
          }
        }
        case '|' -> {
          boolean or = at(i + 1, '|');
          endCommand(!or);
          i += or || at(i + 1, '&') ? 2 : 1;
        }
        case '&' -> {
          if (at(i + 1, '>')) {
            endWord();
            redirect(at(i + 2, '>') ? "&>>" : "&>");
          } else {
            endCommand(false);
            i += at(i + 1, '&') ? 2 : 1;
          }
        }
        case '>', '<' -> {
          if (at(i + 1, '(')) {
            processSubstitution();
          } else {
            redirectHere();
          }
        }
        case '\'' -> singleQuoted();
        case '"' -> {
          i++;
          doubleQuoted();
        }
        case '\\' -> {
          if (i + 1 >= s.length()) {
            complete = false;
            i++;
          } else if (s.charAt(i + 1) == '\n') {
            i += 2;
          } else {
            append(s.charAt(i + 1));
            i += 2;
          }
        }
        case '$' -> dollar(false);
        case '`' -> backquoted();
        default -> {
          append(c);
          i++;
        }
      }
    }
    endCommand(false);
  }

  private boolean at(int index, char c) {
    return index < s.length() && s.charAt(index) == c;
  }

  private void append(char c) {
    word.append(c);
    inWord = true;
  }

  private void endWord() {
    if (!inWord) {
      return;
    }
    Word w = new Word(word.toString(), unknown);
    if (pendingRedirect != null) {
      redirects.add(new Redirect(pendingRedirect, w));
      pendingRedirect = null;
    } else {
      words.add(w);
    }
    word.setLength(0);
    inWord = false;
    unknown = false;
  }

  private void endCommand(boolean pipeFollows) {
    endWord();
    if (pendingRedirect != null) {
      // A redirection without its target: the shell refuses the line.
      complete = false;
      pendingRedirect = null;
    }
    if (!words.isEmpty() || !redirects.isEmpty()) {
      commands.add(new Command(List.copyOf(words), List.copyOf(redirects), piped));
    }
    words = new ArrayList<>();
    redirects = new ArrayList<>();
    piped = pipeFollows;
  }

  /** At {@code >} or {@code <}: a number just before it names the descriptor, not a word. */
  private void redirectHere() {
    if (inWord && !unknown && word.toString().matches("[0-9]+")) {
      word.setLength(0);
      inWord = false;
    } else {
      endWord();
    }
    char c = s.charAt(i);
    String op;
    if (c == '>') {
      op = at(i + 1, '>') ? ">>" : at(i + 1, '|') ? ">|" : at(i + 1, '&') ? ">&" : ">";
    } else {
      op =
          s.startsWith("<<<", i)
              ? "<<<"
              : s.startsWith("<<-", i)
                  ? "<<-"
                  : at(i + 1, '<') ? "<<" : at(i + 1, '>') ? "<>" : at(i + 1, '&') ? "<&" : "<";
    }
    redirect(op);
  }

  private void redirect(String op) {
    if (pendingRedirect != null) {
      complete = false;
    }
    pendingRedirect = op;
    i += op.length();
  }

  private void singleQuoted() {
    int end = s.indexOf('\'', i + 1);
    if (end < 0) {
      complete = false;
      end = s.length();
    }
    word.append(s, i + 1, end);
    inWord = true;
    i = end + 1;
  }

  /** After an opening {@code "}: up to the closing one, with its escapes and expansions. */
  private void doubleQuoted() {
    inWord = true;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"') {
        i++;
        return;
      } else if (c == '\\' && i + 1 < s.length() && "$`\"\\\n".indexOf(s.charAt(i + 1)) >= 0) {
        if (s.charAt(i + 1) != '\n') {
          word.append(s.charAt(i + 1));
        }
        i += 2;
      } else if (c == '$') {
        dollar(true);
      } else if (c == '`') {
        backquoted();
      } else {
        word.append(c);
        i++;
      }
    }
    complete = false;
  }

  private void dollar(boolean quoted) {
    inWord = true;
    if (at(i + 1, '\'') && !quoted) {
      ansiC();
    } else if (at(i + 1, '"') && !quoted) {
      i += 2;
      doubleQuoted();
    } else if (s.startsWith("$((", i)) {
      i = closing(i + 1);
      unknown = true;
    } else if (at(i + 1, '(')) {
      int end = closing(i + 1);
      substitutions.add(s.substring(i + 2, Math.max(i + 2, end - 1)));
      i = end;
      unknown = true;
    } else if (at(i + 1, '{')) {
      int end = closing(i + 1);
      String body = s.substring(i + 2, Math.max(i + 2, end - 1));
      i = end;
      if (!quoted && (body.equals("IFS") || body.startsWith("IFS:") || body.startsWith("IFS-"))) {
        splitHere();
      } else {
        // A default such as ${X:-$(cmd)} runs its own commands.
        substitutions.add(body);
        unknown = true;
      }
    } else if (i + 1 < s.length() && isNameStart(s.charAt(i + 1))) {
      int end = i + 1;
      while (end < s.length() && (isNameStart(s.charAt(end)) || Character.isDigit(s.charAt(end)))) {
        end++;
      }
      boolean ifs = s.substring(i + 1, end).equals("IFS");
      i = end;
      if (ifs && !quoted) {
        splitHere();
      } else {
        unknown = true;
      }
    } else if (i + 1 < s.length() && "@*#?$!-0123456789".indexOf(s.charAt(i + 1)) >= 0) {
      i += 2;
      unknown = true;
    } else {
      word.append('$');
      i++;
    }
  }

  /** An unquoted {@code $IFS}: its default value splits the word there. */
  private void splitHere() {
    if (word.length() == 0 && !unknown) {
      inWord = false;
      return;
    }
    endWord();
  }

  private static boolean isNameStart(char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private void backquoted() {
    StringBuilder body = new StringBuilder();
    int j = i + 1;
    while (j < s.length() && s.charAt(j) != '`') {
      if (s.charAt(j) == '\\' && j + 1 < s.length()) {
        j++;
      }
      body.append(s.charAt(j));
      j++;
    }
    if (j >= s.length()) {
      complete = false;
    }
    substitutions.add(body.toString());
    inWord = true;
    unknown = true;
    i = j + 1;
  }

  private void processSubstitution() {
    endWord();
    int end = closing(i + 1);
    substitutions.add(s.substring(i + 2, Math.max(i + 2, end - 1)));
    i = end;
    inWord = true;
    unknown = true;
  }

  /**
   * The index after the bracket that closes the one at {@code open}, past quotes and nested
   * brackets; the end of the line, marked incomplete, when none does.
   */
  private int closing(int open) {
    char o = s.charAt(open);
    char c = o == '(' ? ')' : '}';
    int depth = 0;
    for (int j = open; j < s.length(); j++) {
      char ch = s.charAt(j);
      if (ch == '\\') {
        j++;
      } else if (ch == '\'') {
        int end = s.indexOf('\'', j + 1);
        if (end < 0) {
          break;
        }
        j = end;
      } else if (ch == '"') {
        j++;
        while (j < s.length() && s.charAt(j) != '"') {
          if (s.charAt(j) == '\\') {
            j++;
          }
          j++;
        }
      } else if (ch == o) {
        depth++;
      } else if (ch == c && --depth == 0) {
        return j + 1;
      }
    }
    complete = false;
    return s.length();
  }

  /** {@code $'…'}: bash's C-style escapes, decoded so {@code $'\x72m'} reads as {@code rm}. */
  private void ansiC() {
    int j = i + 2;
    while (j < s.length() && s.charAt(j) != '\'') {
      char c = s.charAt(j);
      if (c == '\\' && j + 1 < s.length()) {
        char e = s.charAt(j + 1);
        j += 2;
        switch (e) {
          case 'n' -> word.append('\n');
          case 't' -> word.append('\t');
          case 'r' -> word.append('\r');
          case 'a' -> word.append('\007');
          case 'b' -> word.append('\b');
          case 'e', 'E' -> word.append('\033');
          case 'f' -> word.append('\f');
          case 'v' -> word.append('\013');
          case 'x' -> {
            int end = j;
            while (end < s.length() && end < j + 2 && Character.digit(s.charAt(end), 16) >= 0) {
              end++;
            }
            if (end > j) {
              word.append((char) Integer.parseInt(s.substring(j, end), 16));
            }
            j = end;
          }
          case '0', '1', '2', '3', '4', '5', '6', '7' -> {
            int end = j - 1;
            while (end < s.length()
                && end < j + 2
                && s.charAt(end) >= '0'
                && s.charAt(end) <= '7') {
              end++;
            }
            word.append((char) Integer.parseInt(s.substring(j - 1, end), 8));
            j = end;
          }
          case 'u', 'U', 'c' -> unknown = true;
          default -> word.append(e);
        }
      } else {
        word.append(c);
        j++;
      }
    }
    if (j >= s.length()) {
      complete = false;
    }
    i = j + 1;
  }
}
