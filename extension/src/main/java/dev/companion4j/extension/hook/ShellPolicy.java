package dev.companion4j.extension.hook;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The extension's shell policy, the one decision both CLIs' hooks give: it reads a command line as
 * the shell would ({@link ShellSyntax}) and names the rule of the canonical {@code
 * shell-policy.json} the line breaks, whatever the spelling: quoting, escapes, {@code $IFS},
 * wrappers such as {@code sudo} or {@code xargs}, {@code sh -c}, {@code eval}, substitutions,
 * {@code find -exec}, {@code git}'s global options. Where only running the line would tell what it
 * runs, it asks. A guardrail against a model's mistakes, not a sandbox: a program the line runs can
 * still do anything the user can.
 */
public final class ShellPolicy {
  /** What a rule asks for. */
  public enum Decision {
    DENY,
    ASK
  }

  /** A rule of the policy and why it applies. */
  public record Rule(String name, Decision decision, String message) {}

  /** The canonical rules in the jar. */
  public static final String RESOURCE = "/dev/companion4j/extension/source/shell-policy.json";

  /** Where the install puts a copy of the rules in the extension. */
  public static final String STAGED = "lib/shell-policy.json";

  /** How deep {@code sh -c}, {@code eval} and substitutions may nest before the policy asks. */
  private static final int MAX_DEPTH = 8;

  private static final Set<String> SHELLS =
      Set.of("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox");
  private static final Set<String> INTERPRETERS =
      Set.of("python", "python3", "perl", "ruby", "node", "php", "lua", "tclsh");
  private static final Set<String> KEYWORDS =
      Set.of(
          "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac",
          "time", "coproc");

  /** The git subcommands whose options decide whether they destroy work. */
  private static final Set<String> GIT_DESTRUCTIVE =
      Set.of("reset", "checkout", "restore", "switch", "clean", "stash", "push", "branch");

  /** Harmless sinks of a redirection. */
  private static final Set<String> DEVICES =
      Set.of("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty");

  private final Map<String, Rule> rules;

  private ShellPolicy(Map<String, Rule> rules) {
    this.rules = Map.copyOf(rules);
  }

  /** The rules shipped in this jar. */
  public static ShellPolicy bundled() {
    try (InputStream in = ShellPolicy.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + RESOURCE);
      }
      return parse(FlatJson.read(in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The rules the extension in {@code extensionDir} was staged with ({@link #STAGED}), else the
   * jar's: the jar is large, and indexing it to read one resource would cost every shell call. A
   * staged file that does not parse throws: the hook then refuses rather than guess.
   */
  static ShellPolicy of(String extensionDir) throws IOException {
    if (extensionDir != null) {
      Path staged = Path.of(extensionDir, STAGED);
      if (Files.isRegularFile(staged, LinkOption.NOFOLLOW_LINKS)) {
        // A stream, not Files.readAllBytes: its channels' classes would cost every shell call.
        try (InputStream in = new FileInputStream(staged.toFile())) {
          return parse(FlatJson.read(in.readAllBytes()));
        }
      }
    }
    return bundled();
  }

  /**
   * The decision named {@code name}, in any case. Not {@code Decision.valueOf}: it finds the
   * constants by reflection, which sets up method handles on every shell call.
   */
  private static Decision decision(String name) {
    for (Decision d : Decision.values()) {
      if (d.name().equalsIgnoreCase(name)) {
        return d;
      }
    }
    throw new IllegalArgumentException("a shell policy rule has no decision \"" + name + "\"");
  }

  static ShellPolicy parse(Map<String, String> policy) {
    Map<String, Rule> rules = new HashMap<>();
    for (int i = 0; policy.containsKey("rules." + i + ".name"); i++) {
      String rule = "rules." + i + ".";
      String name = policy.get(rule + "name");
      rules.put(
          name,
          new Rule(name, decision(policy.get(rule + "decision")), policy.get(rule + "message")));
    }
    if (rules.isEmpty()) {
      throw new IllegalStateException("the shell policy has no rules");
    }
    return new ShellPolicy(rules);
  }

  /** The strictest rule {@code command} breaks, a deny before an ask; null when it may run. */
  public Rule check(String command) {
    List<String> broken = new ArrayList<>();
    line(command, 0, broken);
    Rule ask = null;
    for (String name : broken) {
      Rule rule = rules.get(name);
      if (rule == null) {
        throw new IllegalStateException("the shell policy lacks the rule '" + name + "'");
      }
      if (rule.decision() == Decision.DENY) {
        return rule;
      }
      if (ask == null) {
        ask = rule;
      }
    }
    return ask;
  }

  /** The rules a command line breaks, added to {@code broken}. */
  private static void line(String text, int depth, List<String> broken) {
    if (depth > MAX_DEPTH) {
      broken.add("unreadable");
      return;
    }
    ShellSyntax.Script script = ShellSyntax.parse(text);
    if (!script.complete()) {
      broken.add("unreadable");
    }
    for (String body : script.substitutions()) {
      line(body, depth + 1, broken);
    }
    for (ShellSyntax.Command command : script.commands()) {
      redirects(command, broken);
      command(command.words(), command, depth, broken);
    }
  }

  private static void redirects(ShellSyntax.Command command, List<String> broken) {
    for (ShellSyntax.Redirect r : command.redirects()) {
      switch (r.operator()) {
        case "<<", "<<-" -> broken.add("heredoc");
        case ">", ">>", ">|", "&>", "&>>", "<>" -> {
          if (r.target().unknown()
              || !(DEVICES.contains(r.target().text())
                  || r.target().text().startsWith("/dev/fd/"))) {
            broken.add("output redirection");
          }
        }
        case ">&" -> {
          // >&2 duplicates a descriptor; >&file is bash for &>file.
          if (r.target().unknown() || !r.target().text().matches("[0-9]+-?|-")) {
            broken.add("output redirection");
          }
        }
        default -> {}
      }
    }
  }

  /**
   * One simple command given as its words: leading assignments and keywords are skipped, wrappers
   * peeled off, then the command itself judged.
   */
  private static void command(
      List<ShellSyntax.Word> all, ShellSyntax.Command context, int depth, List<String> broken) {
    int start = 0;
    while (start < all.size()) {
      ShellSyntax.Word w = all.get(start);
      if (KEYWORDS.contains(w.text()) && !w.unknown()) {
        start++;
      } else if (w.text().equals("function") && !w.unknown()) {
        start += 2;
      } else if (w.text().matches("[A-Za-z_][A-Za-z0-9_]*(\\[[^]]*])?\\+?=.*")) {
        start++;
      } else {
        break;
      }
    }
    if (start >= all.size()) {
      return;
    }
    List<ShellSyntax.Word> words = all.subList(start, all.size());
    ShellSyntax.Word head = words.get(0);
    String name = head.text().substring(head.text().lastIndexOf('/') + 1);
    if (head.unknown()
        || name.isEmpty()
        || (name.matches(".*[*?\\[{}].*") && !name.matches("\\[+"))) {
      broken.add("unknown command");
      return;
    }
    if (name.equals("for") || name.equals("case") || name.equals("select")) {
      return;
    }
    List<ShellSyntax.Word> args = words.subList(1, words.size());
    List<ShellSyntax.Word> wrapped = wrapped(name, args, broken);
    if (wrapped != null) {
      command(wrapped, context, depth, broken);
      return;
    }
    if (SHELLS.contains(name)) {
      shell(name, args, context, depth, broken);
      return;
    }
    switch (name) {
      case "rm" -> rm(args, broken);
      case "git" -> git(args, broken);
      case "find" -> find(args, context, depth, broken);
      case "eval" -> {
        broken.add("unknown command");
        if (known(args)) {
          line(join(args), depth + 1, broken);
        }
      }
      case "source", "." -> {
        if (args.isEmpty()
            || args.get(0).unknown()
            || args.get(0).text().startsWith("/dev/")
            || args.get(0).text().equals("-")) {
          broken.add("shell input");
        }
      }
      case "truncate" -> broken.add("truncation");
      case "cp" -> {
        if (any(texts(args), "/dev/(null|zero)")) {
          broken.add("truncation");
        }
      }
      case "shred", "wipefs", "mke2fs" -> broken.add("wiping");
      case "dd" -> {
        if (any(texts(args), "of=.*")) {
          broken.add("wiping");
        } else if (!known(args)) {
          broken.add("unknown command");
        }
      }
      case "sed" -> sed(args, broken);
      case "perl" -> {
        if (any(texts(args), "-[a-zA-Z]*i.*")) {
          broken.add("in-place edit");
        }
        interpreter(args, context, broken);
      }
      case "chmod", "chown", "chgrp" -> {
        if (any(texts(args), "--recursive|-[a-zA-Z]*R[a-zA-Z]*")) {
          broken.add("recursive permissions");
        }
      }
      case "rsync" -> {
        if (any(texts(args), "--delete.*|--remove-source-files")) {
          broken.add("rsync --delete");
        }
      }
      case "tee" -> {
        for (ShellSyntax.Word a : args) {
          if (!a.text().startsWith("-") && !DEVICES.contains(a.text())) {
            broken.add("tee");
            break;
          }
        }
      }
      default -> {
        if (name.startsWith("mkfs")) {
          broken.add("wiping");
        } else if (INTERPRETERS.contains(name) || name.matches("python3\\.[0-9]+")) {
          interpreter(args, context, broken);
        }
      }
    }
  }

  /**
   * The command a wrapper runs ({@code sudo rm} runs {@code rm}), its own options skipped; null
   * when {@code name} wraps nothing or runs no command here.
   */
  private static List<ShellSyntax.Word> wrapped(
      String name, List<ShellSyntax.Word> args, List<String> broken) {
    Set<String> valued;
    switch (name) {
      case "sudo", "doas" ->
          valued =
              Set.of(
                  "-u",
                  "-g",
                  "-C",
                  "-D",
                  "-h",
                  "-p",
                  "-r",
                  "-t",
                  "-T",
                  "-U",
                  "--user",
                  "--group",
                  "--chdir",
                  "--prompt",
                  "--host",
                  "--role",
                  "--type",
                  "--other-user",
                  "--close-from",
                  "--command-timeout");
      case "env" -> {
        valued = Set.of("-u", "--unset", "-C", "--chdir");
        if (any(texts(args), "-[a-zA-Z]*S.*|--split-string.*")) {
          broken.add("unknown command");
          return null;
        }
      }
      case "command", "builtin", "exec", "nohup", "setsid", "time", "unbuffer" ->
          valued = Set.of("-a");
      case "nice" -> valued = Set.of("-n", "--adjustment");
      case "ionice" -> valued = Set.of("-c", "-n", "-p", "-P", "-u", "--class", "--classdata");
      case "stdbuf" -> valued = Set.of("-i", "-o", "-e");
      case "timeout" -> valued = Set.of("-s", "-k", "--signal", "--kill-after");
      case "watch" -> valued = Set.of("-n", "--interval", "-q", "--equexit");
      case "strace", "ltrace" ->
          valued =
              Set.of("-o", "-e", "-p", "-s", "-E", "-u", "-a", "-b", "-I", "-O", "-P", "-S", "-X");
      case "taskset" -> valued = Set.of();
      case "parallel" ->
          valued =
              Set.of(
                  "-j",
                  "--jobs",
                  "-S",
                  "--sshlogin",
                  "--delay",
                  "--timeout",
                  "--joblog",
                  "--results",
                  "-a",
                  "--arg-file",
                  "-d",
                  "--delimiter",
                  "-n",
                  "--max-args",
                  "--tmpdir",
                  "--workdir");
      case "xargs" ->
          valued =
              Set.of(
                  "-a",
                  "-d",
                  "-E",
                  "-e",
                  "-I",
                  "-i",
                  "-L",
                  "-l",
                  "-n",
                  "-P",
                  "-s",
                  "--arg-file",
                  "--delimiter",
                  "--max-args",
                  "--max-procs",
                  "--max-chars",
                  "--max-lines",
                  "--replace",
                  "--eof",
                  "--process-slot-var");
      default -> {
        return null;
      }
    }
    int i = 0;
    while (i < args.size()) {
      String a = args.get(i).text();
      if (name.equals("command") && (a.equals("-v") || a.equals("-V"))) {
        return null;
      }
      if (a.equals("--")) {
        i++;
        break;
      }
      if (name.equals("env") && !args.get(i).unknown() && a.matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
        i++;
      } else if (a.startsWith("-") && a.length() > 1) {
        i += valued.contains(a) ? 2 : 1;
      } else {
        break;
      }
    }
    // Their first operand is a duration or a CPU mask, not the command.
    if ((name.equals("timeout") || name.equals("taskset")) && i < args.size()) {
      i++;
    }
    return i < args.size() ? args.subList(i, args.size()) : null;
  }

  /**
   * {@code sh -c 'text'} runs the text; a shell with neither that nor a script reads commands from
   * its input.
   */
  private static void shell(
      String name,
      List<ShellSyntax.Word> args,
      ShellSyntax.Command context,
      int depth,
      List<String> broken) {
    List<ShellSyntax.Word> rest = args;
    if (name.equals("busybox")) {
      if (args.isEmpty()) {
        return;
      }
      // busybox runs its first argument as an applet: busybox rm -rf is rm -rf.
      command(args, context, depth, broken);
      return;
    }
    boolean inline = false;
    int i = 0;
    for (; i < rest.size(); i++) {
      String a = rest.get(i).text();
      if (a.equals("--") || a.equals("-")) {
        i++;
        break;
      }
      if (!a.startsWith("-") && !a.startsWith("+")) {
        break;
      }
      if (a.equals("-o")
          || a.equals("+o")
          || a.equals("-O")
          || a.equals("+O")
          || a.equals("--rcfile")
          || a.equals("--init-file")) {
        i++;
      } else if (!a.startsWith("--") && a.indexOf('c') > 0) {
        inline = true;
      } else if (!a.startsWith("--") && a.indexOf('s') > 0) {
        broken.add("shell input");
      }
    }
    if (inline) {
      if (i >= rest.size() || rest.get(i).unknown()) {
        broken.add("unknown command");
      } else {
        line(rest.get(i).text(), depth + 1, broken);
      }
    } else if (i >= rest.size()
        || rest.get(i).unknown()
        || rest.get(i).text().startsWith("/dev/")) {
      broken.add("shell input");
    }
  }

  /** An interpreter given no program but a pipe or a redirection runs what arrives there. */
  private static void interpreter(
      List<ShellSyntax.Word> args, ShellSyntax.Command context, List<String> broken) {
    boolean program = any(texts(args), "(?!-).*|-[a-zA-Z]*[cemE]");
    boolean fed = context.piped();
    for (ShellSyntax.Redirect r : context.redirects()) {
      fed |= r.operator().startsWith("<");
    }
    boolean unknownProgram = false;
    for (ShellSyntax.Word a : args) {
      unknownProgram |= a.unknown() && !a.text().startsWith("-");
    }
    if ((!program && fed) || unknownProgram) {
      broken.add("shell input");
    }
  }

  private static void rm(List<ShellSyntax.Word> args, List<String> broken) {
    boolean recursive = false;
    boolean force = false;
    boolean unknown = false;
    for (ShellSyntax.Word w : args) {
      String a = w.text();
      if (a.equals("--")) {
        break;
      }
      if (w.unknown() && !a.startsWith("-")) {
        unknown = true;
      } else if (a.startsWith("--") && a.length() > 2) {
        String option = a.substring(2);
        recursive |= "recursive".startsWith(option);
        force |= "force".startsWith(option);
        if (option.equals("no-preserve-root")) {
          recursive = true;
          force = true;
        }
      } else if (a.startsWith("-") && a.length() > 1) {
        recursive |= a.indexOf('r') > 0 || a.indexOf('R') > 0;
        force |= a.indexOf('f') > 0;
        unknown |= w.unknown();
      }
    }
    if (recursive && force) {
      broken.add("rm -rf");
    } else if (recursive) {
      broken.add("rm -r");
    } else if (unknown) {
      broken.add("unknown command");
    }
  }

  private static void git(List<ShellSyntax.Word> args, List<String> broken) {
    int i = 0;
    while (i < args.size() && args.get(i).text().startsWith("-")) {
      String a = args.get(i).text();
      if (a.equals("-c") && i + 1 < args.size()) {
        config(args.get(i + 1).text(), broken);
      } else if (a.startsWith("--config-env")) {
        broken.add("git history");
      }
      boolean valued =
          a.equals("-C")
              || a.equals("-c")
              || a.equals("--git-dir")
              || a.equals("--work-tree")
              || a.equals("--namespace")
              || a.equals("--super-prefix")
              || a.equals("--config-env")
              || a.equals("--exec-path");
      i += valued ? 2 : 1;
    }
    if (i >= args.size()) {
      return;
    }
    if (args.get(i).unknown()) {
      broken.add("unknown command");
      return;
    }
    String sub = args.get(i).text();
    List<ShellSyntax.Word> rest = args.subList(i + 1, args.size());
    if (!known(rest) && GIT_DESTRUCTIVE.contains(sub)) {
      broken.add("unknown command");
    }
    List<String> opts = new ArrayList<>();
    List<String> operands = new ArrayList<>();
    boolean dashdash = false;
    for (ShellSyntax.Word w : rest) {
      if (w.text().equals("--")) {
        dashdash = true;
      } else if (!dashdash && w.text().startsWith("-") && w.text().length() > 1) {
        opts.add(w.text());
      } else {
        operands.add(w.text());
      }
    }
    switch (sub) {
      case "reset" -> {
        if (any(opts, "--ha|--har|--hard")) {
          broken.add("git reset --hard");
        }
      }
      case "checkout" -> {
        boolean branch = any(opts, "-b|-B|--orphan");
        boolean force = any(opts, "--force|-[a-zA-Z]*f[a-zA-Z]*");
        boolean paths = dashdash || any(operands, "\\.|.*/|.*[*?\\[].*|:.*");
        if (force || (paths && !branch)) {
          broken.add("git discard");
        }
      }
      case "restore" -> {
        boolean staged = any(opts, "--staged|-[a-zA-Z]*S[a-zA-Z]*");
        boolean worktree = any(opts, "--worktree|-[a-zA-Z]*W[a-zA-Z]*");
        if (!staged || worktree) {
          broken.add("git discard");
        }
      }
      case "switch" -> {
        if (any(opts, "--discard-changes|--force|-f")) {
          broken.add("git discard");
        }
      }
      case "clean" -> {
        boolean force = any(opts, "--force|-[a-zA-Z]*f[a-zA-Z]*");
        boolean dryRun = any(opts, "--dry-run|-[a-zA-Z]*n[a-zA-Z]*");
        if (force && !dryRun) {
          broken.add("git clean -f");
        }
      }
      case "stash" -> {
        if (!operands.isEmpty()
            && (operands.get(0).equals("drop") || operands.get(0).equals("clear"))) {
          broken.add("git history");
        }
      }
      case "push" -> {
        if (any(opts, "--force.*|--mirror|--delete|-[a-zA-Z]*[fd][a-zA-Z]*")
            || any(operands, "[+:].*")) {
          broken.add("git history");
        }
      }
      case "branch" -> {
        boolean delete = any(opts, "--delete|-[a-zA-Z]*[dD][a-zA-Z]*");
        boolean force = any(opts, "--force|-[a-zA-Z]*[Df][a-zA-Z]*");
        if (delete && force) {
          broken.add("git history");
        }
      }
      default -> {}
    }
  }

  /** {@code git -c}: an alias or a setting whose value git runs as a command. */
  private static void config(String setting, List<String> broken) {
    String key =
        setting.contains("=")
            ? setting.substring(0, setting.indexOf('=')).toLowerCase(Locale.ROOT)
            : setting.toLowerCase(Locale.ROOT);
    String value = setting.contains("=") ? setting.substring(setting.indexOf('=') + 1) : "";
    if (key.startsWith("alias.")
        || value.startsWith("!")
        || key.endsWith(".pager")
        || key.equals("core.editor")
        || key.equals("core.sshcommand")
        || key.equals("core.fsmonitor")
        || key.equals("core.hookspath")
        || key.startsWith("diff.")
        || key.startsWith("filter.")
        || key.startsWith("credential.")
        || key.equals("sequence.editor")) {
      broken.add("git history");
    }
  }

  private static void find(
      List<ShellSyntax.Word> args, ShellSyntax.Command context, int depth, List<String> broken) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i).text();
      if (args.get(i).unknown() && !a.startsWith("-")) {
        broken.add("unknown command");
      } else if (a.equals("-delete")) {
        broken.add("find -delete");
      } else if (a.equals("-exec")
          || a.equals("-execdir")
          || a.equals("-ok")
          || a.equals("-okdir")) {
        int end = i + 1;
        while (end < args.size()
            && !args.get(end).text().equals(";")
            && !args.get(end).text().equals("+")) {
          end++;
        }
        if (end > i + 1) {
          command(args.subList(i + 1, end), context, depth, broken);
        }
        i = end;
      }
    }
  }

  private static void sed(List<ShellSyntax.Word> args, List<String> broken) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i).text();
      if (a.equals("--")) {
        return;
      }
      if (a.startsWith("--in-place")) {
        broken.add("in-place edit");
      } else if (a.startsWith("-") && !a.startsWith("--")) {
        // Short options up to the first that takes a value (-e, -f, -l): -ni is -n -i; -es/i/ is a
        // script.
        for (int c = 1; c < a.length(); c++) {
          char o = a.charAt(c);
          if (o == 'i') {
            broken.add("in-place edit");
            break;
          }
          if (o == 'e' || o == 'f' || o == 'l') {
            if (c == a.length() - 1) {
              i++;
            }
            break;
          }
        }
      }
    }
  }

  private static boolean known(List<ShellSyntax.Word> words) {
    for (ShellSyntax.Word w : words) {
      if (w.unknown()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Plain loops, no lambdas: each would bootstrap a call site on a path run at every shell call.
   */
  private static boolean any(List<String> texts, String regex) {
    for (String t : texts) {
      if (t.matches(regex)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> texts(List<ShellSyntax.Word> words) {
    List<String> texts = new ArrayList<>(words.size());
    for (ShellSyntax.Word w : words) {
      texts.add(w.text());
    }
    return texts;
  }

  private static String join(List<ShellSyntax.Word> words) {
    StringBuilder b = new StringBuilder();
    for (ShellSyntax.Word w : words) {
      b.append(b.length() == 0 ? "" : " ").append(w.text());
    }
    return b.toString();
  }
}
