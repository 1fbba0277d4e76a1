package dev.companion4j.engine.internal.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads files that someone else may have planted or swapped, on a pool of its own: at most a given
 * number of bytes, never through a link, and within a deadline. A file that became a FIFO after
 * its checks blocks in {@code open()}; that costs one of this pool's threads, never the caller's.
 */
public final class BoundedReads {

  /** The file holds more than the cap allowed. */
  public static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(Path file, int maxBytes) {
      super(file + " is larger than " + maxBytes + " bytes");
    }
  }

  private final ThreadPoolExecutor readers;

  /**
   * @param threadName the name of the pool's threads
   * @param maxThreads how many reads may be under way, stalled ones included; beyond that a read
   *     is refused at once
   */
  public BoundedReads(String threadName, int maxThreads) {
    readers = new ThreadPoolExecutor(0, maxThreads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The whole of {@code file}, opened without following a link.
   *
   * @throws TooLarge when it holds more than {@code maxBytes}
   * @throws IOException when it cannot be read, is not read within {@code deadline}, or every
   *     thread of the pool is taken by reads still stalled
   */
  public byte[] read(Path file, int maxBytes, Duration deadline) throws IOException {
    Future<byte[]> read;
    try {
      read = readers.submit(() -> readAtMost(file, maxBytes));
    } catch (RejectedExecutionException e) {
      throw new IOException("earlier reads are still stalled");
    }
    try {
      return read.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      read.cancel(true);
      throw new IOException("not read within " + deadline.toMillis() + " ms");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      read.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + file);
    }
  }

  private static byte[] readAtMost(Path file, int maxBytes) throws IOException {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw new TooLarge(file, maxBytes);
      }
      return bytes;
    }
  }
}
