package dev.companion4j.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A test peer process (the Node drivers in {@code test-peers/}) spoken to in JSON lines: commands
 * {@code {"id":N,"op":…}} on stdin, one answer {@code {"id":N,"ok":…}} each on stdout, plus
 * unsolicited {@code {"event":…}} lines.
 */
public final class JsonLinePeer implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.shared();

  private final String name;
  private final Process process;
  private final OutputStream stdin;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<JsonNode> events = new CopyOnWriteArrayList<>();
  private final StringBuffer stderr = new StringBuffer();

  private JsonLinePeer(String name, Process process) {
    this.name = name;
    this.process = process;
    this.stdin = process.getOutputStream();
    daemon(name, this::readStdout);
    daemon(name + "-stderr", this::readStderr);
  }

  /** Starts the peer; {@code name} appears in failure messages. */
  public static JsonLinePeer start(String name, ProcessBuilder command) {
    try {
      return new JsonLinePeer(name, command.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + "; is Node.js installed?", e);
    }
  }

  /** Sends an op without waiting; the future completes with the peer's whole answer line. */
  public CompletableFuture<JsonNode> send(String op, Map<String, ?> args) {
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
    } catch (IOException e) {
      pending.remove(id);
      answer.completeExceptionally(
          new AssertionError(name + " is gone; its stderr:\n" + stderr, e));
    }
    return answer;
  }

  /** Sends an op and waits for its answer; fails when the peer answers {@code ok: false}. */
  public JsonNode call(String op, Map<String, ?> args, Duration timeout) {
    JsonNode answer = await(send(op, args), timeout);
    if (!answer.path("ok").asBoolean()) {
      throw new AssertionError(
          name + " " + op + " " + args + " failed: " + answer.path("error").asString());
    }
    return answer;
  }

  /** Waits for an answer, turning every way of not getting one into a failure that says why. */
  public static JsonNode await(CompletableFuture<JsonNode> future, Duration timeout) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + timeout, e);
    }
  }

  /** Every event line so far, oldest first. */
  public List<JsonNode> events() {
    return List.copyOf(events);
  }

  /** Waits up to {@code millis} for another event line. */
  public void awaitEvent(long millis) throws InterruptedException {
    synchronized (events) {
      events.wait(millis);
    }
  }

  public String stderr() {
    return stderr.toString();
  }

  public Process process() {
    return process;
  }

  private void readStdout() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        JsonNode message = JSON.readTree(line);
        if (message.has("event")) {
          events.add(message);
          synchronized (events) {
            events.notifyAll();
          }
        } else {
          CompletableFuture<JsonNode> f = pending.remove(message.path("id").asInt(-1));
          if (f != null) {
            f.complete(message);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // The peer ended; pending calls fail below.
    }
    pending
        .values()
        .forEach(
            f -> f.completeExceptionally(new AssertionError(name + " exited; stderr:\n" + stderr)));
  }

  private void readStderr() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (stderr.length() < 200_000) {
          stderr.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      // Ended with the process.
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    t.start();
  }

  /** Kills the peer, and whatever it started or was started through, without a goodbye. */
  public void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    waitFor(10);
  }

  /** Ends the peer by closing its stdin (the drivers then finish and exit), forcibly if need be. */
  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // Already gone.
    }
    if (!waitFor(15)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  private boolean waitFor(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
