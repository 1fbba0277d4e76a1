package dev.companion4j.cli.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The Qwen Code settings a README's start asks a user to write, as a test writes them. */
public final class ReadmeSettings {
  private static final Pattern JSON_BLOCK = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);

  private ReadmeSettings() {}

  /**
   * Writes {@code settings.json} in {@code qwenHome}: the README's first JSON block (which must ask
   * for the default approval mode), with the fake model's account (a real user has their own).
   */
  public static void writeQwenSettings(String readme, Path qwenHome) throws IOException {
    Matcher block = JSON_BLOCK.matcher(readme);
    assertThat(block.find()).as("the README's settings block").isTrue();
    ObjectNode settings = (ObjectNode) JsonMapper.shared().readTree(block.group(1));
    assertThat(settings.path("tools").path("approvalMode").asString()).isEqualTo("default");
    settings.putObject("security").putObject("auth").put("selectedType", "openai");
    settings.putObject("model").put("name", "fake-model");
    // Follow-up suggestions are extra model requests; they would only add noise to the fake model's
    // script.
    settings.putObject("ui").put("enableFollowupSuggestions", false);
    Files.createDirectories(qwenHome);
    Files.writeString(qwenHome.resolve("settings.json"), settings.toString());
  }
}
