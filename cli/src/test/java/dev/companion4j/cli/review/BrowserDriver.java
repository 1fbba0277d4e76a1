package dev.companion4j.cli.review;

import dev.companion4j.testkit.TestPeers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The machine's headless Chromium, driven through {@code test-peers/browser/browser-driver.mjs}
 * (playwright-core): a page used as a person would, from Java.
 */
final class BrowserDriver implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.shared();
  static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

  private final Process process;
  private final OutputStream stdin;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final StringBuffer stderr = new StringBuffer();

  private BrowserDriver(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
    daemon("browser-driver", this::readStdout);
    daemon("browser-driver-err", this::readStderr);
  }

  static BrowserDriver start() {
    if (!Files.isExecutable(CHROMIUM)) {
      throw new IllegalStateException("No Chromium at " + CHROMIUM + "; the test command installs Debian's chromium");
    }
    Path script = TestPeers.dir().resolve("browser/browser-driver.mjs");
    ProcessBuilder pb = new ProcessBuilder("node", script.toString());
    pb.environment().put("CHROMIUM", CHROMIUM.toString());
    try {
      return new BrowserDriver(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start node", e);
    }
  }

  /** Runs an op and returns its answer; fails with the driver's error otherwise. */
  JsonNode call(String op, Map<String, ?> args) {
    int id = ids.incrementAndGet();
    ObjectNode command = JSON.createObjectNode();
    command.put("id", id);
    command.put("op", op);
    args.forEach((k, v) -> command.set(k, JSON.valueToTree(v)));
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    try {
      synchronized (stdin) {
        stdin.write((JSON.writeValueAsString(command) + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
      }
      JsonNode result = answer.get(60, TimeUnit.SECONDS);
      if (!result.path("ok").asBoolean()) {
        throw new AssertionError("browser " + op + " " + args + " failed: " + result.path("error").asString());
      }
      return result;
    } catch (IOException | ExecutionException | TimeoutException e) {
      throw new AssertionError("browser " + op + " failed; driver stderr:\n" + stderr, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  void open(String url) {
    open(url, 1280, 800, "light");
  }

  void open(String url, int width, int height, String colorScheme) {
    call("open", Map.of("url", url, "width", width, "height", height, "colorScheme", colorScheme));
  }

  void waitFor(String selector) {
    call("waitFor", Map.of("selector", selector));
  }

  void waitFor(String selector, String text) {
    call("waitFor", Map.of("selector", selector, "text", text));
  }

  void waitGone(String selector) {
    call("waitFor", Map.of("selector", selector, "state", "detached"));
  }

  void click(String selector) {
    call("click", Map.of("selector", selector));
  }

  void press(String key) {
    call("press", Map.of("key", key));
  }

  void type(String text) {
    call("type", Map.of("text", text));
  }

  String text(String selector) {
    return call("text", Map.of("selector", selector)).path("text").asString();
  }

  int count(String selector) {
    return call("count", Map.of("selector", selector)).path("count").asInt();
  }

  void screenshot(Path file) {
    screenshot(file, null);
  }

  /** A screenshot of the viewport, or of the first element {@code selector} matches. */
  void screenshot(Path file, String selector) {
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    call("screenshot", selector == null ? Map.of("path", file.toString()) : Map.of("path", file.toString(), "selector", selector));
  }

  /** What the page did since it was opened: requests, console errors, navigations. */
  JsonNode log() {
    return call("log", Map.of());
  }

  private void readStdout() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        JsonNode message = JSON.readTree(line);
        CompletableFuture<JsonNode> f = pending.remove(message.path("id").asInt(-1));
        if (f != null) {
          f.complete(message);
        }
      }
    } catch (IOException | RuntimeException e) {
      // The driver ended; pending calls fail below.
    }
    pending.values().forEach(f -> f.completeExceptionally(new AssertionError("browser driver exited; stderr:\n" + stderr)));
  }

  private void readStderr() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (stderr.length() < 100_000) {
          stderr.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      // Ended with the process.
    }
  }

  private static void daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    try {
      stdin.close();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
