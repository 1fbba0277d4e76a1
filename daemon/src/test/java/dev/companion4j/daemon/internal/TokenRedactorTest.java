package dev.companion4j.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** The token cut out of the daemon's text in each form it is likely to take. */
class TokenRedactorTest {
  private static final String TOKEN = "s3cr3t-Token_value.0123456789";
  private static final TokenRedactor REDACTOR = TokenRedactor.of(TOKEN);

  private static String percentEncodedEverywhere(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      out.append(String.format("%%%02X", (int) c));
    }
    return out.toString();
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachFormBecomesTheMark() {
    String[] forms = {
      TOKEN,
      TOKEN.toUpperCase(Locale.ROOT),
      TOKEN.toLowerCase(Locale.ROOT),
      URLEncoder.encode(TOKEN, StandardCharsets.UTF_8),
      percentEncodedEverywhere(TOKEN),
      percentEncodedEverywhere(TOKEN).toLowerCase(Locale.ROOT),
      percentEncodedEverywhere(TOKEN).replace("%", "%25"),
      TOKEN.replace("-", "&#45;").replace("_", "&#x5F;").replace("s", "&#x73"),
      TOKEN.replace("-", "\\-").replace("_", "\\_").replace(".", "\\."),
      HexFormat.of().formatHex(TOKEN.getBytes(StandardCharsets.UTF_8)),
      HexFormat.of().formatHex(TOKEN.getBytes(StandardCharsets.UTF_8)).toUpperCase(Locale.ROOT),
      base64(TOKEN),
      Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(TOKEN.getBytes(StandardCharsets.UTF_8)),
    };
    for (String form : forms) {
      assertThat(REDACTOR.redact("before " + form + " after"))
          .as(form)
          .matches("before \\[token]\\S{0,3} after");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"Bearer ", "Bearer x", "Bearer xy", "a:"})
  void theTokenInsideALongerEncodedTextIsCutOutWhereverItStarts(String prefix) {
    String encoded = base64(prefix + TOKEN + " and more");

    String redacted = REDACTOR.redact(encoded);

    assertThat(redacted).contains("[token]");
    assertThat(redacted.replaceAll(".*\\[token]", ""))
        .as("what follows is the tail only")
        .hasSizeLessThan(16);
  }

  @Test
  void otherTextIsLeftAlone() {
    String text = "The token is not here: s3cr3t, Token, value.01234 and 0123456789.";

    assertThat(REDACTOR.redact(text)).isEqualTo(text);
    assertThat(TokenRedactor.of(null).redact(TOKEN)).isEqualTo(TOKEN);
  }

  @Test
  void jsonIsRedactedInEveryStringAndNameAndKeptWhenClean() {
    JsonNode json =
        Json.MAPPER.readTree(
            "{\"models\":[\"m-"
                + TOKEN
                + "\"],\""
                + TOKEN
                + "\":{\"n\":1,\"t\":\"x\\u0073"
                + TOKEN.substring(1)
                + "\"}}");
    JsonNode clean = Json.MAPPER.readTree("{\"a\":[\"b\",2],\"c\":{\"d\":null}}");

    assertThat(REDACTOR.redact(json).toString())
        .doesNotContain(TOKEN)
        .isEqualTo("{\"models\":[\"m-[token]\"],\"[token]\":{\"n\":1,\"t\":\"x[token]\"}}");
    assertThat(REDACTOR.redact(clean)).isSameAs(clean);
  }
}
