package dev.companion4j.extension.hook;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The extension's shell rules, read from the canonical {@code shell-policy.json} the generator
 * also turns into Gemini CLI's policy file: the one rule set both CLIs enforce.
 */
public final class ShellPolicy {
  /** What a rule asks for. */
  public enum Decision { DENY, ASK }

  /** A rule that matched, and why it applies. */
  public record Rule(String name, Decision decision, Pattern pattern, String message) {}

  /** The canonical rules in the jar. */
  public static final String RESOURCE = "/dev/companion4j/extension/source/shell-policy.json";
  /** Where the install puts a copy of the rules in the extension. */
  public static final String STAGED = "lib/shell-policy.json";

  private final List<Rule> rules;

  private ShellPolicy(List<Rule> rules) {
    this.rules = List.copyOf(rules);
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
   * jar's: the jar is large, and indexing it to read one resource would cost every shell call.
   */
  static ShellPolicy of(String extensionDir) {
    if (extensionDir != null) {
      Path staged = Path.of(extensionDir, STAGED);
      if (Files.isRegularFile(staged)) {
        try {
          return parse(FlatJson.read(Files.readAllBytes(staged)));
        } catch (IOException e) {
          // Unreadable: the jar holds the same rules.
        }
      }
    }
    return bundled();
  }

  static ShellPolicy parse(Map<String, String> policy) {
    List<Rule> rules = new ArrayList<>();
    for (int i = 0; policy.containsKey("rules." + i + ".pattern"); i++) {
      String rule = "rules." + i + ".";
      rules.add(new Rule(
          policy.get(rule + "name"),
          Decision.valueOf(policy.get(rule + "decision").toUpperCase(Locale.ROOT)),
          Pattern.compile(policy.get(rule + "pattern")),
          policy.get(rule + "message")));
    }
    return new ShellPolicy(rules);
  }

  /** The strictest rule {@code command} breaks, a deny before an ask; null when it may run. */
  public Rule check(String command) {
    Rule ask = null;
    for (Rule rule : rules) {
      if (rule.pattern().matcher(command).find()) {
        if (rule.decision() == Decision.DENY) {
          return rule;
        }
        if (ask == null) {
          ask = rule;
        }
      }
    }
    return ask;
  }
}
