package dev.companion4j.cli.testing;

import dev.companion4j.testkit.JsonLinePeer;
import dev.companion4j.testkit.TestPeers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The machine's headless Chromium, driven through {@code test-peers/browser/browser-driver.mjs}
 * (playwright-core): a page used as a person would, from Java.
 */
public final class BrowserDriver implements AutoCloseable {
  static final Path CHROMIUM =
      Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final JsonLinePeer peer;

  private BrowserDriver(JsonLinePeer peer) {
    this.peer = peer;
  }

  public static BrowserDriver start() {
    if (!Files.isExecutable(CHROMIUM)) {
      throw new IllegalStateException(
          "No Chromium at " + CHROMIUM + "; the test command installs Debian's chromium");
    }
    Path script = TestPeers.dir().resolve("browser/browser-driver.mjs");
    ProcessBuilder pb = new ProcessBuilder("node", script.toString());
    pb.environment().put("CHROMIUM", CHROMIUM.toString());
    return new BrowserDriver(JsonLinePeer.start("browser-driver", pb));
  }

  /** Runs an op and returns its answer; fails with the driver's error otherwise. */
  public JsonNode call(String op, Map<String, ?> args) {
    return peer.call(op, args, TIMEOUT);
  }

  public void open(String url) {
    open(url, 1280, 800, "light");
  }

  public void open(String url, int width, int height, String colorScheme) {
    call("open", Map.of("url", url, "width", width, "height", height, "colorScheme", colorScheme));
  }

  public void waitFor(String selector) {
    call("waitFor", Map.of("selector", selector));
  }

  public void waitFor(String selector, String text) {
    call("waitFor", Map.of("selector", selector, "text", text));
  }

  public void waitGone(String selector) {
    call("waitFor", Map.of("selector", selector, "state", "detached"));
  }

  public void click(String selector) {
    call("click", Map.of("selector", selector));
  }

  /** Chooses the option with {@code value} of the select {@code selector}. */
  public void select(String selector, String value) {
    call("select", Map.of("selector", selector, "value", value));
  }

  public void press(String key) {
    call("press", Map.of("key", key));
  }

  public void type(String text) {
    call("type", Map.of("text", text));
  }

  public String text(String selector) {
    return call("text", Map.of("selector", selector)).path("text").asString();
  }

  public int count(String selector) {
    return call("count", Map.of("selector", selector)).path("count").asInt();
  }

  /**
   * Where the first match of {@code selector} is: {@code x}, {@code y}, {@code width}, {@code
   * height}, and {@code onTop}, whether a click at its centre reaches it.
   */
  public JsonNode box(String selector) {
    ObjectNode box = (ObjectNode) call("box", Map.of("selector", selector)).deepCopy();
    box.remove("id");
    box.remove("ok");
    return box;
  }

  public void screenshot(Path file) {
    screenshot(file, null);
  }

  /** A screenshot of the viewport, or of the first element {@code selector} matches. */
  public void screenshot(Path file, String selector) {
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    call(
        "screenshot",
        selector == null
            ? Map.of("path", file.toString())
            : Map.of("path", file.toString(), "selector", selector));
  }

  /** What the page did since it was opened: requests, console errors, navigations. */
  public JsonNode log() {
    return call("log", Map.of());
  }

  @Override
  public void close() {
    peer.close();
  }
}
