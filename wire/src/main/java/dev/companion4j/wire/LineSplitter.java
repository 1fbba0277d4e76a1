package dev.companion4j.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Splits bytes into UTF-8 lines as they arrive, never holding more than the cap: a longer line is
 * reported once and skipped up to its end, so a peer that never ends a line cannot fill the heap.
 * Not thread-safe: one stream, one reader.
 */
public final class LineSplitter {
  /** Receives each line, without its line end, on the thread that feeds the splitter. */
  public interface Lines {
    /** Lines to {@code lines}, and each over-long one's start to {@code tooLong}. */
    static Lines of(Consumer<String> lines, Runnable tooLong) {
      return new Lines() {
        @Override
        public void line(String line) {
          lines.accept(line);
        }

        @Override
        public void tooLong() {
          tooLong.run();
        }
      };
    }

    void line(String line);

    /** A line longer than the cap began; its bytes are dropped up to its end. */
    void tooLong();
  }

  private final int maxLineBytes;
  private final boolean carriageReturnEndsLine;
  private final Lines lines;
  private byte[] buffer = new byte[1024];
  private int length;
  private boolean skipping;
  private boolean afterCarriageReturn;

  /**
   * @param carriageReturnEndsLine true for event streams, where CR, LF and CRLF each end a line;
   *     false for JSON lines, where only LF does and a CR before it is dropped
   */
  public LineSplitter(int maxLineBytes, boolean carriageReturnEndsLine, Lines lines) {
    if (maxLineBytes < 1) {
      throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
    }
    this.maxLineBytes = maxLineBytes;
    this.carriageReturnEndsLine = carriageReturnEndsLine;
    this.lines = lines;
  }

  public void feed(byte[] bytes, int offset, int count) {
    for (int i = offset; i < offset + count; i++) {
      accept(bytes[i]);
    }
  }

  public void feed(ByteBuffer bytes) {
    while (bytes.hasRemaining()) {
      accept(bytes.get());
    }
  }

  /** The end of the stream: a last line without a line end is still a line. */
  public void finish() {
    if (length > 0 && !skipping) {
      emit();
    }
    length = 0;
    skipping = false;
  }

  private void accept(byte b) {
    boolean lineFeedAfterCarriageReturn = afterCarriageReturn && b == '\n';
    afterCarriageReturn = false;
    if (lineFeedAfterCarriageReturn) {
      return;
    }
    if (b == '\n' || (b == '\r' && carriageReturnEndsLine)) {
      afterCarriageReturn = b == '\r';
      if (!skipping) {
        emit();
      }
      skipping = false;
      length = 0;
      return;
    }
    if (skipping) {
      return;
    }
    if (length == maxLineBytes) {
      skipping = true;
      length = 0;
      lines.tooLong();
      return;
    }
    if (length == buffer.length) {
      buffer = Arrays.copyOf(buffer, (int) Math.min(maxLineBytes, 2L * buffer.length));
    }
    buffer[length++] = b;
  }

  private void emit() {
    int end = length;
    if (!carriageReturnEndsLine && end > 0 && buffer[end - 1] == '\r') {
      end--;
    }
    lines.line(new String(buffer, 0, end, StandardCharsets.UTF_8));
    if (buffer.length > 64 * 1024) {
      buffer = new byte[1024];
    }
  }
}
