package dev.companion4j.daemon.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Cuts the daemon's token out of text from the daemon, in the forms it is likely to take there: as
 * is in any letter case; percent-encoded, wholly or in part, once or twice; as HTML character
 * references or with Markdown's backslash escapes (which a page would turn back into the token); in
 * hex; and in base64 or base64url, also inside a longer encoded text (such as {@code Bearer
 * <token>} encoded). The forms are compiled once, into one pattern.
 *
 * <p>It is a guard against the token showing up by accident in what reaches a user interface, not
 * against a daemon bent on showing it in a form of its own making.
 */
public final class TokenRedactor {
  public static final String MARK = "[token]";

  /** The shortest base64 run taken for the token: shorter ones would match ordinary text. */
  private static final int MIN_BASE64 = 8;

  private static final TokenRedactor NONE = new TokenRedactor(null);

  private final Pattern pattern;

  private TokenRedactor(Pattern pattern) {
    this.pattern = pattern;
  }

  /** A redactor for {@code token}; one that changes nothing for {@code null}. */
  public static TokenRedactor of(String token) {
    if (token == null || token.isEmpty()) {
      return NONE;
    }
    byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
    List<String> forms = new ArrayList<>();
    StringBuilder spelled = new StringBuilder("(?i:");
    for (char c : token.toCharArray()) {
      String hex = String.format("%02x", (int) c);
      spelled
          .append("(?:")
          .append(Pattern.quote(String.valueOf(c)))
          .append("|\\\\")
          .append(Pattern.quote(String.valueOf(c)))
          .append("|%(?:25)?")
          .append(hex)
          .append("|&#x0*")
          .append(hex)
          .append(";?")
          .append("|&#0*")
          .append((int) c)
          .append(";?)");
    }
    forms.add(spelled.append(')').toString());
    forms.add("(?i:" + Pattern.quote(HexFormat.of().formatHex(bytes)) + ")");
    for (String core : base64Cores(bytes)) {
      forms.add(Pattern.quote(core));
      forms.add(Pattern.quote(core.replace('+', '-').replace('/', '_')));
    }
    return new TokenRedactor(Pattern.compile(String.join("|", forms)));
  }

  /**
   * The base64 characters that the token alone decides, for each of the three places it can start
   * at within a longer encoded text.
   */
  private static List<String> base64Cores(byte[] token) {
    List<String> cores = new ArrayList<>();
    for (int offset = 0; offset < 3; offset++) {
      byte[] shifted = new byte[offset + token.length];
      System.arraycopy(token, 0, shifted, offset, token.length);
      String encoded = Base64.getEncoder().withoutPadding().encodeToString(shifted);
      int from = (8 * offset + 5) / 6;
      int to = 8 * (offset + token.length) / 6;
      if (to - from >= MIN_BASE64) {
        cores.add(encoded.substring(from, to));
      }
    }
    return cores;
  }

  /** The text with every form of the token replaced by {@value #MARK}. */
  public String redact(String text) {
    if (pattern == null || text == null || text.isEmpty()) {
      return text;
    }
    return pattern.matcher(text).replaceAll(Matcher.quoteReplacement(MARK));
  }

  /**
   * The JSON with every string in it, names included, redacted; the same node when none changes.
   */
  public JsonNode redact(JsonNode json) {
    if (pattern == null || json == null) {
      return json;
    }
    if (json.isString()) {
      String text = json.asString();
      String redacted = redact(text);
      return redacted.equals(text) ? json : StringNode.valueOf(redacted);
    }
    if (json instanceof ArrayNode array) {
      ArrayNode out = Json.MAPPER.createArrayNode();
      boolean changed = false;
      for (JsonNode item : array) {
        JsonNode r = redact(item);
        changed |= r != item;
        out.add(r);
      }
      return changed ? out : json;
    }
    if (json instanceof ObjectNode object) {
      ObjectNode out = Json.MAPPER.createObjectNode();
      boolean changed = false;
      for (Map.Entry<String, JsonNode> field : object.properties()) {
        String name = redact(field.getKey());
        JsonNode r = redact(field.getValue());
        changed |= r != field.getValue() || !name.equals(field.getKey());
        out.set(name, r);
      }
      return changed ? out : json;
    }
    return json;
  }
}
