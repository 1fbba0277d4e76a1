package dev.companion4j.engine.internal.sse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Frames waiting for a reader, oldest first. A frame added with a key replaces a waiting frame of
 * the same key in place, so a slow reader gets the newest state rather than every intermediate one.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class FrameQueue {
  private final SseChannel.Limits limits;
  private final ArrayDeque<Frame> frames = new ArrayDeque<>();
  private final Map<String, Frame> keyed = new HashMap<>();
  private long bytes;

  private static final class Frame {
    final String key;
    byte[] bytes;

    Frame(String key, byte[] bytes) {
      this.key = key;
      this.bytes = bytes;
    }
  }

  public FrameQueue(SseChannel.Limits limits) {
    this.limits = limits;
  }

  /**
   * Adds {@code frame}, or replaces the waiting frame with the same {@code key}.
   *
   * @param key null to always append
   * @return false when the queue now holds more than its limits allow
   */
  public boolean add(String key, byte[] frame) {
    Frame same = key == null ? null : keyed.get(key);
    if (same != null) {
      bytes += frame.length - same.bytes.length;
      same.bytes = frame;
    } else {
      Frame f = new Frame(key, frame);
      frames.add(f);
      bytes += frame.length;
      if (key != null) {
        keyed.put(key, f);
      }
    }
    return frames.size() <= limits.maxFrames() && bytes <= limits.maxBytes();
  }

  /** The oldest frame, removed; null when none waits. */
  public byte[] poll() {
    Frame next = frames.poll();
    if (next == null) {
      return null;
    }
    if (next.key != null) {
      keyed.remove(next.key);
    }
    bytes -= next.bytes.length;
    return next.bytes;
  }

  /**
   * Moves every waiting frame, keys kept, to the end of {@code other}, leaving this one empty.
   *
   * @return false when {@code other} now holds more than its limits allow
   */
  public boolean drainTo(FrameQueue other) {
    boolean within = true;
    for (Frame f : frames) {
      within &= other.add(f.key, f.bytes);
    }
    clear();
    return within;
  }

  /** The waiting frames as text, oldest first. */
  public List<String> toText() {
    return frames.stream().map(f -> new String(f.bytes, StandardCharsets.UTF_8)).toList();
  }

  public boolean isEmpty() {
    return frames.isEmpty();
  }

  public void clear() {
    frames.clear();
    keyed.clear();
    bytes = 0;
  }
}
