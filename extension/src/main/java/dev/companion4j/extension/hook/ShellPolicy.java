package dev.companion4j.extension.hook;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension's shell rules, read from the canonical {@code shell-policy.json} the generator
 * also turns into Gemini CLI's policy file: the one rule set both CLIs enforce.
 */
public final class ShellPolicy {
  /** What a rule asks for. */
  public enum Decision { DENY, ASK }

  /** A rule that matched, and why it applies. */
  public record Rule(String name, Decision decision, Pattern pattern, String message) {}

  private static final String RESOURCE = "/dev/companion4j/extension/source/shell-policy.json";

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
      return parse(JsonMapper.shared().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ShellPolicy parse(JsonNode policy) {
    List<Rule> rules = new ArrayList<>();
    for (JsonNode r : policy.path("rules")) {
      rules.add(new Rule(
          r.path("name").asString(),
          Decision.valueOf(r.path("decision").asString().toUpperCase(java.util.Locale.ROOT)),
          Pattern.compile(r.path("pattern").asString()),
          r.path("message").asString()));
    }
    return new ShellPolicy(rules);
  }

  /** The strictest rule {@code command} breaks: a deny before an ask; empty when it may run. */
  public Optional<Rule> check(String command) {
    Optional<Rule> ask = Optional.empty();
    for (Rule rule : rules) {
      if (rule.pattern().matcher(command).find()) {
        if (rule.decision() == Decision.DENY) {
          return Optional.of(rule);
        }
        ask = ask.or(() -> Optional.of(rule));
      }
    }
    return ask;
  }
}
