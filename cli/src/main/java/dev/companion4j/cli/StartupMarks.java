package dev.companion4j.cli;

import java.time.Instant;

/**
 * With {@code -Dcompanion4j.startup.marks=true}, one line on stderr as start-up reaches each step:
 * {@code companion4j-startup STEP MICROS}, the wall clock in microseconds since the epoch, which a
 * benchmark that spawned the process compares with its own ({@code scripts/benchmark.sh startup}).
 * Without the property it prints nothing.
 */
final class StartupMarks {
  private static final boolean ON = Boolean.getBoolean("companion4j.startup.marks");

  private StartupMarks() {}

  static void mark(String step) {
    if (ON) {
      Instant now = Instant.now();
      System.err.println(
          "companion4j-startup "
              + step
              + " "
              + (now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000));
    }
  }
}
