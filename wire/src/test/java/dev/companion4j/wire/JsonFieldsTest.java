package dev.companion4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Request bodies are refused in the same words wherever they are sent. */
class JsonFieldsTest {

  private static JsonNode json(String text) throws BadRequest {
    return JsonFields.parse(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anEmptyBodyIsNoneAndABrokenOneIsRefused() throws BadRequest {
    assertThat(JsonFields.parse(new byte[0])).isNull();
    assertThatThrownBy(() -> json("{\"a\":"))
        .isInstanceOf(BadRequest.class)
        .hasMessage("the body is not valid JSON");
    assertThatThrownBy(() -> JsonFields.object(json("[]"))).hasMessage("expected a JSON object");
  }

  @Test
  void positionsAreWholeNumbersFromOneThatFitAnIntAndMayBeLeftOutWhereOptional() throws BadRequest {
    JsonNode body =
        json(
            "{\"line\":3,\"big\":2147483648,\"zero\":0,\"half\":1.5,\"text\":\"2\",\"none\":null}");

    assertThat(JsonFields.position(body, "line")).isEqualTo(3);
    for (String field : new String[] {"big", "zero", "half", "text", "absent"}) {
      assertThatThrownBy(() -> JsonFields.position(body, field))
          .hasMessage(field + " must be a whole number from 1 (positions are 1-based)");
    }
    assertThat(JsonFields.optionalPosition(body, "none")).isZero();
    assertThat(JsonFields.optionalPosition(body, "absent")).isZero();
  }

  @Test
  void stringsTextsAndBooleansSayWhatTheyMustBe() throws BadRequest {
    JsonNode body = json("{\"s\":\"x\",\"blank\":\" \",\"n\":1,\"b\":true,\"nil\":null}");

    assertThat(JsonFields.text(body, "s")).isEqualTo("x");
    assertThatThrownBy(() -> JsonFields.text(body, "blank")).hasMessage("blank must not be empty");
    assertThatThrownBy(() -> JsonFields.string(body, "n"))
        .hasMessage("n is required and must be a string");
    assertThat(JsonFields.optionalString(body, "nil")).isNull();
    assertThatThrownBy(() -> JsonFields.optionalString(body, "n")).hasMessage("n must be a string");
    assertThat(JsonFields.bool(body, "b")).isTrue();
    assertThatThrownBy(() -> JsonFields.bool(body, "s")).hasMessage("s must be true or false");
  }

  @Test
  void onlyAnAbsolutePathPassesAndARefusalRepeatsAtMostItsStart() throws BadRequest {
    assertThat(JsonFields.absolutePath("path", "/w/a.txt")).isEqualTo(Path.of("/w/a.txt"));
    assertThatThrownBy(() -> JsonFields.absolutePath("filePath", "src/A.java"))
        .hasMessage("filePath must be absolute: src/A.java");
    assertThatThrownBy(() -> JsonFields.absolutePath("path", "/w/\0"))
        .hasMessage("path is not a valid path: /w/\0");
    assertThatThrownBy(() -> JsonFields.absolutePath("path", "y".repeat(10_000)))
        .hasMessage("path must be absolute: " + "y".repeat(200) + "…");
  }
}
