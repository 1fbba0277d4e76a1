package dev.companion4j.cli.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/** Reading a child process's output a line at a time, on a thread of its own. */
public final class ProcessLines {
  private ProcessLines() {}

  /**
   * Hands each line of {@code stream} to {@code lines} on a daemon thread named {@code name}, until
   * the stream ends with the process.
   */
  public static void follow(String name, InputStream stream, Consumer<String> lines) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  lines.accept(line);
                }
              } catch (IOException e) {
                // Ended with the process.
              }
            },
            name);
    t.setDaemon(true);
    t.start();
  }

  /**
   * A line sink that keeps each JSON object in {@code objects} and every other line in {@code
   * unreadable}.
   */
  public static Consumer<String> jsonObjects(List<JsonNode> objects, List<String> unreadable) {
    return line -> {
      try {
        JsonNode node = CompanionProcess.JSON.readTree(line);
        if (node != null && node.isObject()) {
          objects.add(node);
          return;
        }
      } catch (RuntimeException e) {
        // Kept below.
      }
      unreadable.add(line);
    };
  }
}
